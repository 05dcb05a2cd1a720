"""A small scripted fake referee for the bot kit's tests, and request builders.

The fake serves ``brandeln.v1.Referee`` on 127.0.0.1:0. Each accepted stream is handed to a
*script* (an async function of a :class:`FakeSeat`) that sends messages and reads answers;
everything the bot sent is recorded so tests assert on it afterwards (asserting inside the
servicer would only turn into an opaque INTERNAL status on the client).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc
from grpc import aio

from brandeln.sdk.notation import parse_card, parse_choice
from brandeln.v1 import bot_pb2, bot_pb2_grpc, cards_pb2


class StreamClosedError(Exception):
    """The bot closed its side of the stream."""


@dataclass
class FakeSeat:
    """One accepted stream, as a script sees it."""

    context: Any  # grpc.aio.ServicerContext (generic in the stubs)
    hello: bot_pb2.Hello
    stream_number: int
    actions: list[bot_pb2.Action] = field(default_factory=list)
    logs: list[str] = field(default_factory=list)

    async def send(self, **message: Any) -> None:
        """Send one RefereeMessage, e.g. ``send(match_started=...)``."""
        await self.context.write(bot_pb2.RefereeMessage(**message))

    _inbox: asyncio.Queue[bot_pb2.BotMessage | None] | None = None
    _reader: asyncio.Task[None] | None = None

    async def _read_all(self, inbox: asyncio.Queue[bot_pb2.BotMessage | None]) -> None:
        # One reader task: cancelling a pending context.read() would break the call.
        while (message := await self.context.read()) is not aio.EOF:
            inbox.put_nowait(message)
        inbox.put_nowait(None)

    async def receive(self) -> bot_pb2.BotMessage:
        """The bot's next message other than a BotLog (logs are recorded)."""
        if self._inbox is None:
            self._inbox = asyncio.Queue()
            self._reader = asyncio.create_task(self._read_all(self._inbox))
        while True:
            message = await self._inbox.get()
            if message is None:
                self._inbox.put_nowait(None)
                raise StreamClosedError
            if message.WhichOneof("kind") == "log":
                self.logs.append(message.log.text)
                continue
            return message

    async def ask(self, request: bot_pb2.DecisionRequest) -> bot_pb2.Action:
        """Send a request and return the bot's action for it."""
        await self.send(request=request)
        message = await self.receive()
        assert message.WhichOneof("kind") == "action", message
        self.actions.append(message.action)
        return message.action

    async def ask_or_time_out(
        self, request: bot_pb2.DecisionRequest, timeout_s: float
    ) -> bot_pb2.Action | None:
        """Like :meth:`ask`, but give up after ``timeout_s`` as the referee's clock would."""
        await self.send(request=request)
        try:
            async with asyncio.timeout(timeout_s):
                message = await self.receive()
        except TimeoutError:
            return None
        assert message.WhichOneof("kind") == "action", message
        self.actions.append(message.action)
        return message.action

    async def until_closed(self) -> None:
        """Wait (recording logs) until the bot closes the stream."""
        try:
            while True:
                await self.receive()
        except StreamClosedError:
            return

    async def drop(self) -> None:
        """Break the stream as a network failure would look to the bot."""
        await self.context.abort(grpc.StatusCode.UNAVAILABLE, "connection lost (fake)")


Script = Callable[[FakeSeat], Awaitable[None]]


class FakeReferee(bot_pb2_grpc.RefereeServicer):
    """Accepts ``tokens``, checks the Hello like the real referee, then runs ``script``."""

    def __init__(self, script: Script, tokens: Sequence[str] = ("good-token",)) -> None:
        self.script = script
        self.tokens = set(tokens)
        self.supported_versions = {1}
        self.hellos: list[bot_pb2.Hello] = []
        self.seats: list[FakeSeat] = []
        self.errors: list[BaseException] = []

    async def Play(  # type: ignore[override]  # noqa: N802  (read/write API, not iterators)
        self, request_iterator: Any, context: Any
    ) -> None:
        first = await context.read()
        if first is aio.EOF or first.WhichOneof("kind") != "hello":
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "first message must be hello")
        hello = first.hello
        self.hellos.append(hello)
        if hello.token not in self.tokens:
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, "unknown token")
        if hello.protocol_version not in self.supported_versions:
            await context.abort(
                grpc.StatusCode.FAILED_PRECONDITION,
                f"protocol_version {hello.protocol_version} unsupported; supported: "
                + ", ".join(map(str, sorted(self.supported_versions))),
            )
        seat = FakeSeat(context=context, hello=hello, stream_number=len(self.seats))
        self.seats.append(seat)
        await seat.send(
            welcome=bot_pb2.Welcome(
                session_id=f"s{seat.stream_number}",
                bot_id="b1",
                protocol_version=1,
                server_version="fake",
            )
        )
        try:
            await self.script(seat)
        except StreamClosedError:
            pass
        except (asyncio.CancelledError, aio.AbortError):
            raise
        except BaseException as error:  # recorded for the test, which then fails clearly
            self.errors.append(error)
            raise
        finally:
            if seat._reader is not None:
                seat._reader.cancel()


class FakeServer:
    """``async with FakeServer(referee) as address:`` serves on 127.0.0.1:0."""

    def __init__(self, referee: FakeReferee) -> None:
        self.referee = referee
        self.server = aio.server()
        bot_pb2_grpc.add_RefereeServicer_to_server(referee, self.server)
        self.port = self.server.add_insecure_port("127.0.0.1:0")

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    async def __aenter__(self) -> str:
        await self.server.start()
        return self.address

    async def __aexit__(self, *exc: object) -> None:
        await self.server.stop(grace=0.2)


# --- message builders ----------------------------------------------------------------------
STANDARD_CONTRACTS = (
    ("brandle", "at_least", 3, True, 3),
    ("brand", "at_least", 4, True, 4),
    ("bettel", "zero", 0, False, 6),
    ("mord", "all", 7, True, 12),
    ("herrenmord", "all", 7, False, 18),
)


def standard_ruleset() -> cards_pb2.Ruleset:
    return cards_pb2.Ruleset(
        id="standard",
        players=4,
        tricks=7,
        contracts=[
            cards_pb2.ContractInfo(id=i, goal=g, tricks=t, trump=tr, value=v)
            for i, g, t, tr, v in STANDARD_CONTRACTS
        ],
    )


def match_started(match_id: str = "m1", seat: int = 1, reconnect_ms: int = 5000) -> Any:
    return bot_pb2.MatchStarted(
        match_id=match_id,
        seat=seat,
        players=[cards_pb2.Player(seat=s, bot_name=f"bot{s}") for s in range(4)],
        ruleset=standard_ruleset(),
        deals=1,
        time_control=cards_pb2.TimeControl(
            move_ms=1000, bank_ms=5000, max_strikes=3, reconnect_ms=reconnect_ms
        ),
    )


def cards(text: str) -> list[cards_pb2.Card]:
    return [parse_card(token) for token in text.split()]


def choices(text: str) -> list[cards_pb2.Choice]:
    return [parse_choice(token) for token in text.split()]


HAND = "CA C9 SK HJ H7 HA D9"


def deal_started(hand: str = HAND) -> bot_pb2.DealStarted:
    return bot_pb2.DealStarted(deal_number=1, dealer=0, forehand=1, hand=cards(hand))


def request(
    request_id: int,
    phase: cards_pb2.Phase.ValueType,
    legal: str,
    hand: str = HAND,
    current_trick: str = "",
    trump: cards_pb2.Suit.ValueType = cards_pb2.SUIT_UNSPECIFIED,
    contract: str = "",
    soloist: int | None = None,
) -> bot_pb2.DecisionRequest:
    view = cards_pb2.PlayerView(
        seat=1,
        dealer=0,
        forehand=1,
        hand=cards(hand),
        contract=contract,
        trump=trump,
        current_trick=cards(current_trick),
        current_trick_leader=0,
        tricks_won=[0, 0, 0, 0],
        match_balances=[0, 0, 0, 0],
        deal_number=1,
    )
    if soloist is not None:
        view.soloist = soloist
    return bot_pb2.DecisionRequest(
        request_id=request_id,
        phase=phase,
        legal=choices(legal),
        view=view,
        move_ms=1000,
        bank_ms=5000,
    )


def scripted_requests() -> list[bot_pb2.DecisionRequest]:
    """A bid, a trump naming and two card plays of one deal (seat 1, forehand)."""
    return [
        request(11, cards_pb2.PHASE_BID, "pass brandle brand bettel mord herrenmord"),
        request(12, cards_pb2.PHASE_TRUMP, "C S H D", contract="brandle", soloist=1),
        request(
            13,
            cards_pb2.PHASE_CARD,
            HAND,
            trump=cards_pb2.SUIT_HEARTS,
            contract="brandle",
            soloist=1,
        ),
        request(
            14,
            cards_pb2.PHASE_CARD,
            "C9 CA",
            hand="CA C9 SK H7 HA D9",
            current_trick="CT",
            trump=cards_pb2.SUIT_HEARTS,
            contract="brandle",
            soloist=1,
        ),
    ]


def match_ended(match_id: str = "m1") -> bot_pb2.MatchEnded:
    return bot_pb2.MatchEnded(
        match_id=match_id, balances=[-3, 9, -3, -3], ranks=[2, 1, 2, 2], status="finished"
    )
