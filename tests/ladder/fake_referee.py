"""A fake referee for the runner's tests: the Admin service and the Referee's Play handshake.

It plays no cards. ``RunMatch`` streams a scripted match: per deal a ``ContractSet`` and a
``DealEnded`` whose chips are a pure function of the seed, the deal, the seat (the "cards":
identical in every rotation of a block), and the bot (its ``skill`` plus a seeded per-bot
wobble), then scripted penalties, then the ``MatchSummary``. ``Play`` accepts a ``Hello`` with a
registered token and holds the session open, so ``ListSessions`` sees real bot processes.
"""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import secrets
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field

import grpc
from grpc import aio

from brandeln.v1 import admin_pb2, admin_pb2_grpc, bot_pb2, bot_pb2_grpc, cards_pb2

ADMIN_TOKEN = "admin-secret"


def _hash_int(text: str, low: int, high: int) -> int:
    value = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")
    return low + value % (high - low + 1)


def season_name_of(referee_name: str) -> str:
    """The season bot name inside a registered name ``bot@season[-n]``."""
    return referee_name.split("@", 1)[0]


@dataclass
class FakeSession:
    session_id: str
    bot_id: str
    state: str = "lobby"


@dataclass
class FakeReferee(admin_pb2_grpc.AdminServicer, bot_pb2_grpc.RefereeServicer):
    """Scripted referee state; tests change the public fields to script matches."""

    skill: dict[str, int] = field(default_factory=dict)  # by season bot name
    forfeits: set[str] = field(default_factory=set)  # season bot names forfeiting every match
    penalties: dict[str, list[str]] = field(default_factory=dict)  # name -> codes per match
    # The matches to end 'aborted', by (seed, season bot names by seat): a match of a season
    # plan, whichever RunMatch call plays it (blocks in flight at once race for the calls).
    abort_matches: set[tuple[int, tuple[str, ...]]] = field(default_factory=set)
    deal_delay_s: float = 0.0
    list_bots_implemented: bool = True
    rotate_implemented: bool = True
    bots: dict[str, tuple[str, str]] = field(default_factory=dict)  # bot_id -> (name, token)
    sessions: dict[str, FakeSession] = field(default_factory=dict)
    requests: list[admin_pb2.RunMatchRequest] = field(default_factory=list)
    registrations: list[str] = field(default_factory=list)
    rotations: list[str] = field(default_factory=list)  # bot ids, in the order rotated
    matches_finished: int = 0
    running: int = 0
    max_running: int = 0
    address: str = ""
    server: aio.Server | None = None
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    # -- helpers for tests ------------------------------------------------------------------

    def add_bot(self, name: str) -> tuple[str, str]:
        # Ids and tokens unique across fake referees, as a real referee's would be.
        bot_id = f"bot-{secrets.token_hex(4)}"
        token = secrets.token_urlsafe(12)
        self.bots[bot_id] = (name, token)
        return bot_id, token

    def add_session(self, bot_id: str) -> str:
        session_id = f"s-{next(self._ids)}"
        self.sessions[session_id] = FakeSession(session_id, bot_id)
        return session_id

    def session_count(self) -> int:
        return len(self.sessions)

    async def wait_until(self, condition: Callable[[], bool], timeout_s: float = 20.0) -> None:
        """Poll until ``condition()`` is true."""
        deadline = asyncio.get_running_loop().time() + timeout_s
        while not condition():
            if asyncio.get_running_loop().time() > deadline:
                raise TimeoutError("the fake referee waited in vain")
            await asyncio.sleep(0.01)

    async def stop(self) -> None:
        if self.server is not None:
            await self.server.stop(0)

    # -- Admin --------------------------------------------------------------------------------

    async def _authorize(self, context: aio.ServicerContext[object, object]) -> None:
        metadata = dict(context.invocation_metadata() or ())
        if metadata.get("authorization") != f"Bearer {ADMIN_TOKEN}":
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, "bad admin token")

    async def RegisterBot(  # noqa: N802
        self, request: admin_pb2.RegisterBotRequest, context: aio.ServicerContext[object, object]
    ) -> admin_pb2.RegisterBotResponse:
        await self._authorize(context)
        if any(name == request.name for name, _ in self.bots.values()):
            await context.abort(grpc.StatusCode.ALREADY_EXISTS, f"{request.name} exists")
        self.registrations.append(request.name)
        bot_id, token = self.add_bot(request.name)
        return admin_pb2.RegisterBotResponse(bot_id=bot_id, token=token)

    async def ListBots(  # noqa: N802
        self, request: admin_pb2.ListBotsRequest, context: aio.ServicerContext[object, object]
    ) -> admin_pb2.ListBotsResponse:
        await self._authorize(context)
        if not self.list_bots_implemented:
            await context.abort(grpc.StatusCode.UNIMPLEMENTED, "no ListBots here")
        return admin_pb2.ListBotsResponse(
            bots=[
                admin_pb2.BotInfo(bot_id=bot_id, name=name)
                for bot_id, (name, _) in self.bots.items()
            ]
        )

    async def RotateBotToken(  # noqa: N802
        self,
        request: admin_pb2.RotateBotTokenRequest,
        context: aio.ServicerContext[object, object],
    ) -> admin_pb2.RotateBotTokenResponse:
        await self._authorize(context)
        if not self.rotate_implemented:
            await context.abort(grpc.StatusCode.UNIMPLEMENTED, "no RotateBotToken here")
        if request.bot_id not in self.bots:
            await context.abort(grpc.StatusCode.NOT_FOUND, f"no bot {request.bot_id}")
        self.rotations.append(request.bot_id)
        token = secrets.token_urlsafe(12)
        self.bots[request.bot_id] = (self.bots[request.bot_id][0], token)
        return admin_pb2.RotateBotTokenResponse(bot_id=request.bot_id, token=token)

    async def ListSessions(  # noqa: N802
        self, request: admin_pb2.ListSessionsRequest, context: aio.ServicerContext[object, object]
    ) -> admin_pb2.ListSessionsResponse:
        await self._authorize(context)
        return admin_pb2.ListSessionsResponse(
            sessions=[
                admin_pb2.SessionInfo(
                    session_id=s.session_id,
                    bot_id=s.bot_id,
                    bot_name=self.bots[s.bot_id][0],
                    state=s.state,
                )
                for s in self.sessions.values()
            ]
        )

    async def RunMatch(  # noqa: N802
        self, request: admin_pb2.RunMatchRequest, context: aio.ServicerContext[object, object]
    ) -> AsyncIterator[admin_pb2.MatchUpdate]:
        await self._authorize(context)
        connected = {s.bot_id for s in self.sessions.values()}
        for bot_id in request.bot_ids:
            if bot_id not in self.bots:
                await context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"unknown bot {bot_id}")
            if bot_id not in connected:
                await context.abort(grpc.StatusCode.UNAVAILABLE, f"bot {bot_id} has no session")
        self.requests.append(request)
        number = len(self.requests)
        match_id = f"match-{number}"
        names = [season_name_of(self.bots[bot_id][0]) for bot_id in request.bot_ids]
        players = len(names)
        self.running += 1
        self.max_running = max(self.max_running, self.running)
        try:
            yield admin_pb2.MatchUpdate(
                started=bot_pb2.MatchStarted(match_id=match_id, deals=request.deals)
            )
            balances = [0] * players
            seq = itertools.count(1)
            for deal in range(1, request.deals + 1):
                await asyncio.sleep(self.deal_delay_s)
                soloist = (deal - 1) % players
                passed_out = deal % 4 == 0  # a Muss-Spiel: the soloist did not bid
                yield self._event(
                    next(seq),
                    deal,
                    contract_set=cards_pb2.ContractSet(
                        soloist=soloist, contract="brandle", passed_out=passed_out
                    ),
                )
                payments = self._payments(request.seed, deal, names)
                balances = [b + p for b, p in zip(balances, payments, strict=True)]
                yield self._event(
                    next(seq),
                    deal,
                    deal_ended=cards_pb2.DealEnded(
                        deal_number=deal,
                        soloist=soloist,
                        contract="brandle",
                        made=payments[soloist] > 0,
                        payments=payments,
                        balances=balances,
                    ),
                )
            strikes = [0] * players
            for seat, name in enumerate(names):
                for code in self.penalties.get(name, []):
                    strikes[seat] += 1
                    yield self._event(
                        next(seq),
                        request.deals,
                        seat_penalized=cards_pb2.SeatPenalized(
                            seat=seat, code=code, reason=code, strikes=strikes[seat]
                        ),
                    )
            forfeited = [seat for seat, name in enumerate(names) if name in self.forfeits]
            aborted = (request.seed, tuple(names)) in self.abort_matches
            status = "aborted" if aborted else "finished"
            yield admin_pb2.MatchUpdate(
                result=admin_pb2.MatchSummary(
                    match_id=match_id,
                    ruleset=request.ruleset,
                    bot_ids=request.bot_ids,
                    balances=balances,
                    forfeited=forfeited,
                    status=status,
                    deals_played=request.deals,
                    strikes=strikes,
                )
            )
            self.matches_finished += 1
        finally:
            self.running -= 1

    def _payments(self, seed: int, deal: int, names: list[str]) -> list[int]:
        raw = [
            _hash_int(f"cards:{seed}:{deal}:{seat}", -3, 3)  # the same in every rotation
            + self.skill.get(name, 0)
            + _hash_int(f"form:{seed}:{deal}:{name}", -2, 2)
            for seat, name in enumerate(names)
        ]
        total = sum(raw)
        return [len(raw) * value - total for value in raw]  # integers summing to zero

    @staticmethod
    def _event(seq: int, deal: int, **kind: object) -> admin_pb2.MatchUpdate:
        return admin_pb2.MatchUpdate(
            event=cards_pb2.GameEvent(seq=seq, deal_number=deal, **kind)  # type: ignore[arg-type]
        )

    async def WatchMatch(  # noqa: N802
        self, request: admin_pb2.WatchMatchRequest, context: aio.ServicerContext[object, object]
    ) -> AsyncIterator[cards_pb2.GameEvent]:
        await context.abort(grpc.StatusCode.UNIMPLEMENTED, "not in the fake")
        yield cards_pb2.GameEvent()  # pragma: no cover - makes this an async generator

    async def ListMatches(  # noqa: N802
        self, request: admin_pb2.ListMatchesRequest, context: aio.ServicerContext[object, object]
    ) -> admin_pb2.ListMatchesResponse:
        await context.abort(grpc.StatusCode.UNIMPLEMENTED, "not in the fake")

    async def GetMatch(  # noqa: N802
        self, request: admin_pb2.GetMatchRequest, context: aio.ServicerContext[object, object]
    ) -> admin_pb2.GetMatchResponse:
        await context.abort(grpc.StatusCode.UNIMPLEMENTED, "not in the fake")

    # -- Referee --------------------------------------------------------------------------------

    async def Play(  # noqa: N802
        self,
        request_iterator: AsyncIterator[bot_pb2.BotMessage],
        context: aio.ServicerContext[object, object],
    ) -> AsyncIterator[bot_pb2.RefereeMessage]:
        first = await anext(aiter(request_iterator))
        token = first.hello.token
        bot_id = next((b for b, (_, t) in self.bots.items() if t == token), None)
        if bot_id is None:
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, "bad token")
            return
        session_id = self.add_session(bot_id)
        try:
            yield bot_pb2.RefereeMessage(
                welcome=bot_pb2.Welcome(session_id=session_id, bot_id=bot_id, protocol_version=1)
            )
            async for _ in request_iterator:
                pass
        finally:
            self.sessions.pop(session_id, None)


async def start_fake_referee(port: int = 0) -> FakeReferee:
    fake = FakeReferee()
    server = aio.server()
    admin_pb2_grpc.add_AdminServicer_to_server(fake, server)
    bot_pb2_grpc.add_RefereeServicer_to_server(fake, server)
    bound = server.add_insecure_port(f"127.0.0.1:{port}")
    await server.start()
    fake.server = server
    fake.address = f"127.0.0.1:{bound}"
    return fake
