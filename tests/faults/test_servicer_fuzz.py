"""Hypothesis fuzzing of the Referee service: generated BotMessage sequences and raw byte blobs
sent over real gRPC to a real referee.

Why over gRPC and not to the servicer with a fake context: the bugs worth finding sit in the
seams a fake would replace. Bytes that are no BotMessage fail inside gRPC's request iterator
(the referee answered UNKNOWN there before it caught DecodeError), the size caps are gRPC's and
the servicer's, statuses are what a real client reads, and the reader and writer tasks, the
lobby and the table run as they do in production. A loopback round trip costs a few
milliseconds, so a few hundred examples fit in the time budget.

The referee runs in a thread with its own event loop (Hypothesis drives a synchronous gRPC
client, which also reports the server's status faithfully where grpc.aio may not, see
grpc/grpc#36066), next to three well-behaved in-process bots and one long match. The fuzzed bot
holds the fourth seat: each example resumes it, waits for its request, sends the generated
sequence, half-closes (or cancels) and reads the stream to its end. Every example checks: the
call ends with a defined status within a deadline (no hang); every message is a defined one
(rejections carry a defined code); the seat is sent no card outside its own hand; the table
is still running. At the end the match's log must replay.
"""

from __future__ import annotations

import asyncio
import queue
import threading
import time
from collections.abc import Callable, Coroutine, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import grpc
import pytest
from google.protobuf import json_format
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from brandeln.arena import referee as referee_module
from brandeln.arena.embedded import EmbeddedReferee
from brandeln.arena.logreader import read_log
from brandeln.arena.orders import MatchOrder, TimeControlOrder
from brandeln.arena.referee import Referee
from brandeln.arena.replay import replay_log
from brandeln.arena.table import Table
from brandeln.protocol.statuses import MatchStatus
from brandeln.v1 import bot_pb2, bot_pb2_grpc, cards_pb2
from tests.faults.fleet import DealBook, leaks

T = TypeVar("T")

PLAY = "/brandeln.v1.Referee/Play"
CALL_TIMEOUT_S = 20.0  # a call still open after this is a hang
# The fuzzed seat's move time: a request it cannot answer any more (more than 8 messages sent
# for it) times out this long after the seat stays connected.
MOVE_MS = 300
SETTLE_S = 2.0
SEED = 4242
DEALS = 1000
# What a stream may end with. UNKNOWN or INTERNAL would be an exception escaping the servicer.
HANDSHAKE_CODES = {
    grpc.StatusCode.OK,
    grpc.StatusCode.INVALID_ARGUMENT,
    grpc.StatusCode.UNAUTHENTICATED,
    grpc.StatusCode.FAILED_PRECONDITION,
    grpc.StatusCode.PERMISSION_DENIED,
    grpc.StatusCode.RESOURCE_EXHAUSTED,
}
SEATED_CODES = {
    grpc.StatusCode.OK,
    grpc.StatusCode.INVALID_ARGUMENT,
    grpc.StatusCode.RESOURCE_EXHAUSTED,
    grpc.StatusCode.CANCELLED,  # the example cancelled the call itself
}
REFEREE_KINDS = {f.name for f in bot_pb2.RefereeMessage.DESCRIPTOR.oneofs_by_name["kind"].fields}
REJECT_CODES = set(bot_pb2.RejectCode.values()) - {bot_pb2.REJECT_CODE_UNSPECIFIED}


# --- the referee, its honest bots and the long match, in a thread -----------------------------
class RefereeThread:
    """An EmbeddedReferee on its own event loop in a daemon thread."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.embedded = EmbeddedReferee(data_dir)
        self.errors: list[dict[str, Any]] = []
        self.tokens: dict[str, str] = {}
        self.bot_ids: dict[str, str] = {}
        self.match_id = ""
        self._bots: list[asyncio.Task[None]] = []

    def call(self, coroutine: Coroutine[Any, Any, T], timeout: float = 60.0) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    @property
    def referee(self) -> Referee:
        assert self.embedded.referee is not None
        return self.embedded.referee

    def start(self) -> None:
        self.thread.start()
        self.call(self._start())

    async def _start(self) -> None:
        asyncio.get_running_loop().set_exception_handler(
            lambda _loop, context: self.errors.append(context)
        )
        await self.embedded.start()
        for name in ("fuzzed", "stranger", "revoked", "honest-1", "honest-2", "honest-3"):
            record, token = self.referee.register_bot(name)
            self.bot_ids[name], self.tokens[name] = record.bot_id, token
        self.referee.store.revoke_bot(self.bot_ids["revoked"])
        for n in (1, 2, 3):
            self._bots.append(asyncio.ensure_future(self._honest(self.tokens[f"honest-{n}"])))
        # The fuzzed seat needs a session to be seated; the first example resumes it.
        placeholder = asyncio.ensure_future(self._placeholder(self.tokens["fuzzed"]))
        tc = TimeControlOrder(
            move_ms=MOVE_MS, bank_ms=1, max_strikes=1_000_000, reconnect_ms=600_000
        )
        order = MatchOrder(
            bot_ids=tuple(self.bot_ids[n] for n in ("fuzzed", "honest-1", "honest-2", "honest-3")),
            deals=DEALS,
            seed=SEED,
            time_control=tc,
            seat_wait_ms=10_000,
        )
        table = await self.referee.start_match(order)
        self.match_id = table.spec.match_id
        placeholder.cancel()

    async def _honest(self, token: str) -> None:
        """A well-behaved bot: the first legal choice, at once."""
        async with grpc.aio.insecure_channel(self.embedded.address) as channel:
            outgoing: asyncio.Queue[bot_pb2.BotMessage] = asyncio.Queue()
            outgoing.put_nowait(
                bot_pb2.BotMessage(hello=bot_pb2.Hello(token=token, protocol_version=1))
            )

            async def messages() -> Any:
                while True:
                    yield await outgoing.get()

            async for message in bot_pb2_grpc.RefereeStub(channel).Play(messages()):
                if message.WhichOneof("kind") == "request":
                    request = message.request
                    action = bot_pb2.Action(request_id=request.request_id, choice=request.legal[0])
                    outgoing.put_nowait(bot_pb2.BotMessage(action=action))

    async def _placeholder(self, token: str) -> None:
        async with grpc.aio.insecure_channel(self.embedded.address) as channel:

            async def messages() -> Any:
                yield bot_pb2.BotMessage(hello=bot_pb2.Hello(token=token, protocol_version=1))
                await asyncio.Event().wait()

            async for _ in bot_pb2_grpc.RefereeStub(channel).Play(messages()):
                pass

    def table(self) -> Table | None:
        return self.referee.tables.get(self.match_id)

    def stop(self) -> None:
        async def stop() -> None:
            for bot in self._bots:
                bot.cancel()
            await asyncio.gather(*self._bots, return_exceptions=True)
            await self.embedded.stop()

        self.call(stop())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)


@dataclass
class Fuzz:
    """What the tests share: the referee, a client channel, what the fuzzed seat received."""

    referee: RefereeThread
    channel: grpc.Channel
    received: list[dict[str, Any]]
    streams: Iterator[int]

    def play(self) -> Callable[..., Any]:
        return self.channel.stream_stream(
            PLAY,
            request_serializer=_identity,
            response_deserializer=bot_pb2.RefereeMessage.FromString,
        )


def _identity(data: bytes) -> bytes:
    return data


@pytest.fixture(scope="module")
def fuzz(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fuzz]:
    with pytest.MonkeyPatch.context() as patch:
        # Every example resumes the fuzzed seat; the limit that stops a drop-resume loop (the
        # fleet tests it) would otherwise park the seat after ten examples.
        patch.setattr(referee_module, "MAX_RESUMES_PER_MATCH", 1_000_000)
        referee = RefereeThread(tmp_path_factory.mktemp("fuzz"))
        referee.start()
        channel = grpc.insecure_channel(referee.embedded.address)
        try:
            yield Fuzz(referee, channel, [], iter(range(1, 1 << 30)))
        finally:
            channel.close()
            referee.stop()


# --- what the fuzzer sends ------------------------------------------------------------------------
@dataclass(frozen=True)
class Op:
    """One message to send; ``build`` turns it into bytes given the open request."""

    kind: str
    args: tuple[Any, ...] = ()
    suffix: bytes = b""  # raw bytes after the message: unknown fields, or garbage

    def build(self, request: bot_pb2.DecisionRequest | None, tokens: dict[str, str]) -> bytes:
        open_id = request.request_id if request is not None else 1
        if self.kind == "raw":
            return bytes(self.args[0])
        if self.kind == "empty":
            return self.suffix
        if self.kind == "log":
            message = bot_pb2.BotMessage(log=bot_pb2.BotLog(text=self.args[0]))
        elif self.kind == "oversize":
            message = bot_pb2.BotMessage(log=bot_pb2.BotLog(text="x" * self.args[0]))
        elif self.kind == "hello":
            token_name, version, resume = self.args
            message = bot_pb2.BotMessage(
                hello=bot_pb2.Hello(
                    token=tokens.get(token_name, token_name),
                    protocol_version=version,
                    resume_match_id=resume,
                )
            )
        else:
            rid, choice = self.args
            request_id = {"open": open_id, "previous": open_id - 1, "next": open_id + 1}.get(
                rid, rid
            )
            action = bot_pb2.Action(request_id=int(request_id) % (1 << 64))
            built = _choice(choice, request)
            if built is not None:
                action.choice.CopyFrom(built)
            message = bot_pb2.BotMessage(action=action)
        return message.SerializeToString() + self.suffix


def _choice(
    spec: tuple[Any, ...], request: bot_pb2.DecisionRequest | None
) -> cards_pb2.Choice | None:
    kind = spec[0]
    if kind == "legal":
        if request is None or not request.legal:
            return None
        legal: cards_pb2.Choice = request.legal[spec[1] % len(request.legal)]
        return legal
    if kind == "bid":
        return cards_pb2.Choice(bid=cards_pb2.Bid(contract=spec[1]))
    if kind == "trump":
        return cards_pb2.Choice(trump=spec[1])
    if kind == "card":
        return cards_pb2.Choice(card=cards_pb2.Card(suit=spec[1], rank=spec[2]))
    return None  # an action without a choice


enum_value = st.one_of(st.integers(0, 9), st.integers(-(2**31), 2**31 - 1))
choices = st.one_of(
    st.tuples(st.just("legal"), st.integers(0, 40)),
    st.tuples(st.just("bid"), st.one_of(st.sampled_from(["pass", "brandle", "mord"]), st.text())),
    st.tuples(st.just("trump"), enum_value),
    st.tuples(st.just("card"), enum_value, enum_value),
    st.just(("none",)),
)
request_ids = st.one_of(st.sampled_from(["open", "previous", "next"]), st.integers(0, 2**64 - 1))
# Bytes after a message: nothing, an unknown field holding random bytes, or plain garbage.
suffixes = st.one_of(
    st.just(b""),
    st.binary(max_size=24).map(lambda b: b"\xa2\x06" + bytes([len(b)]) + b),
    st.binary(min_size=1, max_size=8),
)
ops = st.one_of(
    st.builds(Op, st.just("action"), st.tuples(request_ids, choices), suffixes),
    st.builds(Op, st.just("log"), st.tuples(st.text(max_size=300))),
    st.builds(Op, st.just("raw"), st.tuples(st.binary(max_size=80))),
    st.builds(Op, st.just("empty"), st.just(()), suffixes),
    st.builds(Op, st.just("oversize"), st.tuples(st.sampled_from([16 * 1024 + 1, 40_000]))),
    st.builds(
        Op,
        st.just("hello"),
        st.tuples(st.sampled_from(["fuzzed", "stranger", "x"]), st.integers(0, 3), st.just("")),
    ),
)
first_messages = st.one_of(
    st.builds(
        Op,
        st.just("hello"),
        st.tuples(
            st.sampled_from(["fuzzed", "stranger", "revoked", "", "made-up"]),
            st.one_of(st.just(1), st.integers(0, 2**32 - 1)),
            st.sampled_from(["", "MATCH", "m_0000000000000000", "\u00e9\u00e8"]),
        ),
        suffixes,
    ),
    ops,
)


# --- one example --------------------------------------------------------------------------------
@dataclass
class Outcome:
    code: grpc.StatusCode
    details: str
    messages: list[bot_pb2.RefereeMessage]


def exchange(
    fuzz: Fuzz,
    first: bytes,
    then: list[Op],
    *,
    wait_for_request: bool,
    cancel: bool = False,
    settle: bool = False,
) -> Outcome:
    """One stream: ``first``; optionally wait for the seat's request; the ``then`` ops; then
    half-close (or cancel) and read to the end. With ``settle`` the stream stays open until
    the table asks the seat something new (its answer accepted, or the request timed out), so
    the match moves on."""
    outgoing: queue.Queue[bytes | None] = queue.Queue()
    outgoing.put(first)

    def requests() -> Iterator[bytes]:
        while (item := outgoing.get()) is not None:
            yield item

    call = fuzz.play()(requests(), timeout=CALL_TIMEOUT_S)
    received: list[bot_pb2.RefereeMessage] = []
    request: bot_pb2.DecisionRequest | None = None
    sent = closed = False
    timer: threading.Timer | None = None
    code, details = grpc.StatusCode.OK, ""
    try:
        if not wait_for_request:
            for op in then:
                outgoing.put(op.build(None, fuzz.referee.tokens))
            outgoing.put(None)
            sent = closed = True
        for message in call:
            received.append(message)
            kind = message.WhichOneof("kind")
            if not sent and kind == "request":
                request = message.request
                for op in then:
                    outgoing.put(op.build(request, fuzz.referee.tokens))
                sent = True
                if cancel:
                    call.cancel()
                    break
                if settle:
                    timer = threading.Timer(SETTLE_S, outgoing.put, (None,))
                    timer.start()
                else:
                    outgoing.put(None)
                    closed = True
            elif sent and not closed and kind in ("request", "match_ended"):
                assert request is not None
                if kind == "match_ended" or message.request.request_id != request.request_id:
                    outgoing.put(None)
                    closed = True
    except grpc.RpcError as error:
        code, details = error.code(), error.details() or ""
    finally:
        if timer is not None:
            timer.cancel()
        outgoing.put(None)
    if cancel and sent:
        code = grpc.StatusCode.CANCELLED
    return Outcome(code, details, received)


def check_messages(fuzz: Fuzz, outcome: Outcome, stream: int) -> None:
    for message in outcome.messages:
        kind = message.WhichOneof("kind")
        assert kind in REFEREE_KINDS
        if kind == "rejected":
            assert message.rejected.code in REJECT_CODES, message
    records = [
        {
            "kind": "msg",
            "stream": stream,
            "type": message.WhichOneof("kind"),
            "msg": json_format.MessageToDict(message),
        }
        for message in outcome.messages
    ]
    fuzz.received.extend(records)
    table = fuzz.referee.table()
    deals = table.deal_number if table is not None else DEALS
    book = DealBook.build(SEED, max(deals, 1), None)  # the hands from the seed, as dealt
    assert leaks(records, {fuzz.referee.match_id: book}, "fuzzed") == []


def wait_until_the_seat_is_free(fuzz: Fuzz) -> None:
    """Wait for the referee to see the fuzzed seat's last stream gone. A cancelled call ends
    on the client at once but on the server only when gRPC tells the handler; a resume sent
    before that finds the seat still held and waits in the lobby (docs/rulings.md, rule 20), so
    the example would read nothing past its welcome until the call's deadline."""
    deadline = time.monotonic() + CALL_TIMEOUT_S
    while True:
        table = fuzz.referee.table()
        assert table is not None, "the fuzzed match is over: the table crashed?"
        if table.seat_of_bot(fuzz.referee.bot_ids["fuzzed"]) is not None:
            return
        assert time.monotonic() < deadline, "the fuzzed seat's last stream never ended"
        time.sleep(0.005)


def check_referee_alive(fuzz: Fuzz) -> None:
    assert fuzz.referee.errors == []
    table = fuzz.referee.table()
    assert table is not None, "the fuzzed match is over: the table crashed?"
    assert not table.done.is_set()


# --- the tests ----------------------------------------------------------------------------------
FUZZ_SETTINGS = settings(
    max_examples=1000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@FUZZ_SETTINGS
@given(first=first_messages, then=st.lists(ops, max_size=6))
def test_any_opening_gets_a_defined_status(fuzz: Fuzz, first: Op, then: list[Op]) -> None:
    """Whatever a connection says first (and after): a defined status, never a hang."""
    tokens = {**fuzz.referee.tokens}
    resume = first.args[2] if first.kind == "hello" else ""
    if resume == "MATCH":
        resume = fuzz.referee.match_id
    if first.kind == "hello":
        first = Op("hello", (first.args[0], first.args[1], resume), first.suffix)
    if first.kind == "hello" and first.args[0] == "fuzzed" and resume == fuzz.referee.match_id:
        tokens["fuzzed"] = "not-now"  # a real resume of the seat is the seated test's business
    outcome = exchange(fuzz, first.build(None, tokens), then, wait_for_request=False)
    assert outcome.code in HANDSHAKE_CODES, (outcome.code, outcome.details)
    check_messages(fuzz, outcome, next(fuzz.streams))
    kinds = [m.WhichOneof("kind") for m in outcome.messages]
    assert set(kinds) <= {"welcome", "rejected"}, kinds
    check_referee_alive(fuzz)


@FUZZ_SETTINGS
@given(sequence=st.lists(ops, min_size=1, max_size=14), answer=st.booleans(), cancel=st.booleans())
def test_a_seated_bot_sending_anything_never_breaks_the_table(
    fuzz: Fuzz, sequence: list[Op], answer: bool, cancel: bool
) -> None:
    """Resume the fuzzed seat, wait for its request, send the sequence (then, with
    ``answer``, a legal answer, so the match moves on to other situations)."""
    if answer:
        sequence = [*sequence, Op("action", ("open", ("legal", 0)))]
    wait_until_the_seat_is_free(fuzz)
    hello = bot_pb2.BotMessage(
        hello=bot_pb2.Hello(
            token=fuzz.referee.tokens["fuzzed"],
            protocol_version=1,
            resume_match_id=fuzz.referee.match_id,
        )
    )
    outcome = exchange(
        fuzz,
        hello.SerializeToString(),
        sequence,
        wait_for_request=True,
        cancel=cancel and not answer,
        settle=answer,
    )
    assert outcome.code in SEATED_CODES, (outcome.code, outcome.details)
    kinds = [m.WhichOneof("kind") for m in outcome.messages]
    assert kinds[:2] == ["welcome", "match_started"], kinds
    assert "request" in kinds, kinds  # the open request, sent again on the resume
    check_messages(fuzz, outcome, next(fuzz.streams))
    check_referee_alive(fuzz)


def test_the_fuzzed_match_replays_and_nothing_leaked(fuzz: Fuzz) -> None:
    """Last (tests run in file order): abort the match, replay its log, check every message
    the fuzzed seat received against the log, public cards included."""
    table = fuzz.referee.table()
    assert table is not None
    assert table.deals_played > 0  # the fuzzing did not stall the match
    fuzz.referee.call(fuzz.referee.referee.abort_all())
    text = Path(table.log_path).read_text()
    report = replay_log(text)
    assert report.problems == (), report.problems
    footer = read_log(text).footer
    assert footer is not None
    assert footer.status is MatchStatus.ABORTED
    book = DealBook.build(SEED, table.deal_number, text)
    assert leaks(fuzz.received, {fuzz.referee.match_id: book}, "fuzzed") == []
    assert len(fuzz.received) > 300
