"""The ladder's only way to the referee: a ``grpc.aio`` client of the ``Admin`` service.

Every call carries ``authorization: Bearer <admin token>``; gRPC failures become
:class:`~brandeln.ladder.errors.RefereeError` with a message that says what to check. This module is
also the ladder's one place that turns ladder values into protobuf messages and back: what it
returns is values (:mod:`brandeln.ladder.referee.records`, the protocol's records of
:mod:`brandeln.protocol.events`), so its callers (the runner, the CLI, the web front) never touch a
message (the conversions are :mod:`brandeln.ladder.referee.admin_wire`'s, and
:func:`run_match_request` there is the one builder of a ``RunMatchRequest``).

>>> async def example(address: str, token: str) -> None:      # doctest: +SKIP
...     async with AdminClient(address, token) as admin:
...         bot_id, bot_token = await admin.register_bot("random")
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from types import TracebackType

import grpc
from grpc import aio

from brandeln.ladder.errors import (
    BlockFailedError,
    MatchUnavailableError,
    RefereeBotNameTakenError,
)
from brandeln.ladder.referee.admin_wire import (
    call_error,
    describe_rpc_error,
    latency_of,
    match_of,
    read_event,
    run_match_request,
    suit_permutation_message,
    time_control_message,
    time_control_of,
)
from brandeln.ladder.referee.records import RefereeBot, RefereeMatch, RefereeSession
from brandeln.ladder.referee.tally import MatchTally
from brandeln.ladder.season.config import SeasonConfig
from brandeln.ladder.season.duplicate import MatchOutcome, MatchPlan
from brandeln.protocol.decode import LiveEvent
from brandeln.protocol.statuses import (
    MatchStatus,
    SessionState,
    session_state_from_pb,
)
from brandeln.v1 import admin_pb2, admin_pb2_grpc

__all__ = [
    "AdminClient",
    "MatchStatus",
    "SessionCount",
    "latency_of",
    "match_of",
    "run_match_request",
    "suit_permutation_message",
    "time_control_message",
    "time_control_of",
]

# Bound every message the referee may send (a full match log can be several megabytes).
MAX_MESSAGE_BYTES = 64 * 1024 * 1024


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

        Raises :class:`RefereeBotNameTakenError` when the name is taken, else :class:`RefereeError`.
        """
        try:
            response = await self._stub.RegisterBot(
                admin_pb2.RegisterBotRequest(name=name),
                metadata=self._metadata,
                timeout=self._timeout,
            )
        except grpc.aio.AioRpcError as error:
            if error.code() == grpc.StatusCode.ALREADY_EXISTS:
                raise RefereeBotNameTakenError(
                    f"a bot named {name!r} is already registered"
                ) from None
            raise describe_rpc_error(self.address, f"registering bot {name!r}", error) from None
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
            raise describe_rpc_error(self.address, f"new token for bot {bot_id}", error) from None
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
            raise describe_rpc_error(self.address, "listing bots", error) from None
        return {bot.bot_id for bot in response.bots if not bot.revoked}

    async def list_bots(self) -> list[RefereeBot]:
        """Every registered bot, revoked ones included.

        Raises :class:`RefereeCallError` when the referee answers with an error status.
        """
        try:
            response = await self._stub.ListBots(
                admin_pb2.ListBotsRequest(), metadata=self._metadata, timeout=self._timeout
            )
        except grpc.aio.AioRpcError as error:
            raise call_error(self.address, error) from None
        return [RefereeBot(b.bot_id, b.name, b.created_at, b.revoked) for b in response.bots]

    async def list_matches(
        self, *, limit: int, bot_id: str = "", match_id_prefix: str = ""
    ) -> list[RefereeMatch]:
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
            raise call_error(self.address, error) from None
        return [match_of(summary) for summary in response.matches]

    async def get_match(self, match_id: str) -> tuple[RefereeMatch, str]:
        """A match's summary and its whole log (JSON lines; a running match's up to its last
        finished deal).

        Raises :class:`RefereeNotFoundError` for an unknown id, :class:`RefereeCallError` for
        any other error status.
        """
        try:
            reply = await self._stub.GetMatch(
                admin_pb2.GetMatchRequest(match_id=match_id),
                metadata=self._metadata,
                timeout=self._timeout,
            )
        except grpc.aio.AioRpcError as error:
            raise call_error(self.address, error) from None
        return match_of(reply.summary), reply.log_jsonl

    async def watch_match(self, match_id: str) -> AsyncIterator[LiveEvent]:
        """The public events of a running match: those so far from seq 1, then each as it
        happens, until the match ends (spectators never see a hand before ``DealEnded``);
        kinds this side does not know are skipped.

        Raises :class:`RefereeNotFoundError` when no match with that id is running,
        :class:`RefereeCallError` for any other error status or an event that does not read.
        Closing the iterator ends the call.
        """
        call = self._stub.WatchMatch(
            admin_pb2.WatchMatchRequest(match_id=match_id), metadata=self._metadata
        )
        try:
            async for message in call:
                event = read_event(self.address, message)
                if event is not None:
                    yield event
        except grpc.aio.AioRpcError as error:
            raise call_error(self.address, error) from None
        finally:
            call.cancel()  # a no-op once the stream ended; stops it if the reader goes away

    async def sessions(self) -> list[RefereeSession]:
        """The seat sessions now open."""
        try:
            response = await self._stub.ListSessions(
                admin_pb2.ListSessionsRequest(), metadata=self._metadata, timeout=self._timeout
            )
        except grpc.aio.AioRpcError as error:
            raise describe_rpc_error(self.address, "listing sessions", error) from None
        found = []
        for info in response.sessions:
            try:
                state = session_state_from_pb(info.session_state, info.state)
            except ValueError:
                continue  # a state this side does not know: not one it can count
            found.append(
                RefereeSession(
                    info.session_id,
                    info.bot_id,
                    info.bot_name,
                    state,
                    info.match_id,
                    info.hello_name,
                )
            )
        return found

    async def session_counts(self) -> dict[str, SessionCount]:
        """The connected seat sessions, counted per bot id."""
        counts: dict[str, dict[str, int]] = {}
        for session in await self.sessions():
            states = counts.setdefault(session.bot_id, {"lobby": 0, "seated": 0, "disconnected": 0})
            if session.state is SessionState.LOBBY:
                states["lobby"] += 1
            elif session.state is SessionState.SEATED:
                states["seated"] += 1
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
        request = run_match_request(
            [bot_ids[bot] for bot in plan.bots],
            ruleset=config.ruleset,
            deals=config.deals_per_match,
            seed=plan.seed,
            time_control=config.time_control,
            suit_permutation=plan.suit_permutation,
            seat_wait_ms=config.seat_wait_ms,
            options=config.options,
            summary_updates=True,  # the tally needs contracts, deal ends and penalties only
        )
        tally = MatchTally(config.players)
        if where is None:
            where = f"block {plan.block} rotation {plan.rotation} ({', '.join(plan.bots)})"

        def on_event(event: LiveEvent) -> None:
            tally.add(event)
            if on_deal is not None and event.kind == "deal_ended":
                on_deal()

        summary = await self._play(request, where, on_event, on_started)
        players = config.players
        if len(summary.balances) != players:
            raise BlockFailedError(
                f"match {summary.match_id} of {where}: {len(summary.balances)} balances "
                f"for {players} seats"
            )
        return MatchOutcome(
            plan=plan,
            match_id=summary.match_id,
            balances=summary.balances,
            forfeited=frozenset(summary.forfeited),
            deals_played=summary.deals_played or tally.deals_ended,
            tallies=tally.seats(summary.strikes),
            latency=summary.latency,
        )

    async def play(
        self,
        request: admin_pb2.RunMatchRequest,
        on_event: Callable[[LiveEvent], None] | None = None,
    ) -> RefereeMatch:
        """Play one match through ``RunMatch`` (:func:`run_match_request`), calling
        ``on_event`` for each event streamed; its finished summary. Raises
        :class:`BlockFailedError` when it does not finish."""
        return await self._play(request, None, on_event, None)

    async def _play(
        self,
        request: admin_pb2.RunMatchRequest,
        where: str | None,
        on_event: Callable[[LiveEvent], None] | None,
        on_started: Callable[[str], None] | None,
    ) -> RefereeMatch:
        """The RunMatch stream read to its result (``where`` names the match in errors)."""
        summary: admin_pb2.MatchSummary | None = None
        match_id = ""
        call = self._stub.RunMatch(request, metadata=self._metadata)
        try:
            async for update in call:
                kind = update.WhichOneof("kind")
                if kind == "started":
                    match_id = update.started.match_id
                    if on_started is not None:
                        on_started(match_id)
                elif kind == "event":
                    event = read_event(self.address, update.event)
                    if event is not None and on_event is not None:
                        on_event(event)
                elif kind == "result":
                    summary = update.result
        except grpc.aio.AioRpcError as error:
            what = "match" if where is None else f"match of {where}"
            failure = describe_rpc_error(self.address, what, error)
            unavailable = where is not None and error.code() == grpc.StatusCode.UNAVAILABLE
            error_kind = MatchUnavailableError if unavailable else BlockFailedError
            raise error_kind(str(failure)) from None
        finally:
            call.cancel()  # a no-op once the stream ended; stops the match if we are cancelled
        if summary is None:
            if where is None:
                raise BlockFailedError("a match's stream ended before its result")
            raise BlockFailedError(f"match {match_id or '?'} of {where}: the stream ended early")
        match = match_of(summary)
        if not match.finished:
            of = "" if where is None else f" of {where}"
            raise BlockFailedError(
                f"match {match.match_id}{of} ended {match.status.value!r}, not finished "
                f"(inspect it: brandeln matches show {match.match_id})"
            )
        return match
