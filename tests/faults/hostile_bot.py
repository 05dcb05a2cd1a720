"""A hostile bot process for the fault suite: one script, one behaviour per process.

Usage: python tests/faults/hostile_bot.py --server HOST:PORT --token TOKEN --behaviour NAME
           --out FILE [--name NAME] [--tables N] [--seed S] [--alt-token TOKEN]
           [--foreign-file PATH] [--go-file PATH]

It speaks raw gRPC (stubs and grpc only; no SDK), so it can send anything: every payload goes
through an identity serializer, so a behaviour may send bytes that are no protobuf at all.

It appends one JSON line to ``--out`` for

- every message it receives: ``{"kind": "msg", "stream": n, "msg": {...}}`` (the message as
  ``json_format.MessageToDict``), so a test can check what each seat was sent;
- the opening of every stream: ``{"kind": "open", "stream": n, "purpose": ...}`` (with
  ``"session": k`` for the streams of seat session k), so a judge can tell when it was opened
  and pair a dropped stream with the one that resumed it;
- the end of every stream: ``{"kind": "end", "stream": n, "purpose": ..., "code": "OK" |
  "INVALID_ARGUMENT" | ..., "details": ...}``;
- every fault it injects: ``{"kind": "fault", "stream": n, "what": ..., "expect": ...}``, with
  what the protocol says the referee must do about it;
- ``{"kind": "ready"}`` once its attacks before play are done and its seat sessions are open.

Behaviours (the whole fleet of the fault suite):

  honest           answers every request with a legal choice (seeded random)
  silent           never answers
  late             answers every request just after its deadline
  illegal          answers only illegal choices (max_strikes of them per match)
  stale            answers with stale and foreign request ids, never the open one
  second-hello     sends a second hello at its first request of a match
  action-first     opens streams whose first message is an action, a log, an empty message
  oversize         sends a 20 KiB message, then a 2 MiB one (each ends the stream), resumes
  flood            floods the lobby; at a request sends 300 messages, then 15 KiB logs
  garbage          random bytes: undecodable messages, out-of-range enums, unknown fields
  drop-resume      closes its stream at requests 2, 4 and 6 of a match and resumes
  drop-loop        drops and resumes at every request, never answering
  drop-forever     closes its stream at its first request of a match and never resumes it
  foreign-resume   resumes match ids from --foreign-file (matches it has no seat in)
  shared-token     plays honestly (run twice with one token); probes a resume of its seat
  bad-token        says hello with made-up tokens first
  revoked          says hello with --alt-token (a revoked token) first
  many-streams     opens 300 streams at once when seated, then cancels them
  idle             opens streams that never say hello when seated
  slow-reader      never reads the referee's messages until --go-file changes

Each but slow-reader plays on ``--tables`` seat sessions like a well-behaved bot where its
behaviour leaves it room (it resumes a dropped match like the SDK does), so a test can seat it
match after match.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any, Final

import grpc
from google.protobuf import json_format

from brandeln.v1 import bot_pb2, cards_pb2

PLAY_METHOD: Final = "/brandeln.v1.Referee/Play"
PROTOCOL_VERSION: Final = 1
# A late answer is sent this long after the request's time (move + bank) has run out.
LATE_MARGIN_S: Final = 0.15
# How long an attempt waits for the referee to end its stream before ending it itself: the
# referee's hello timeout (10 s, brandeln.arena.servicers) after gRPC may have held the call for a
# busy referee for up to 30 s (server_max_unrequested_time_in_server), and more; ending it sooner
# would make the referee see the stream end before the attempt's message, on a slow machine.
ATTEMPT_WAIT_S: Final = 10.0 + 30.0 + 5.0
# How long a probe waits after Welcome for the MatchStarted of a resume.
PROBE_WAIT_S: Final = 0.3
RECONNECT_DELAY_S: Final = 0.05
RECONNECT_MAX_DELAY_S: Final = 1.0
BURST_STREAMS: Final = 300
# A burst waits this long after the referee answered the last one: a burst every few seconds
# whatever the referee's pace would pile up calls faster than a slow machine accepts them.
BURST_EVERY_S: Final = 5.0
FLOOD_PER_REQUEST: Final = 300
FLOOD_LOBBY: Final = 65  # servicers.LOBBY_MESSAGE_LIMIT + 1
FLOOD_LOGS: Final = 8000
FLOOD_LOG_BYTES: Final = 15 * 1024
OVERSIZE_BYTES: Final = 20 * 1024
HUGE_BYTES: Final = 2 * 1024 * 1024
IDLE_STREAMS: Final = 3
DROP_AT: Final = (2, 4, 6)

Message = bot_pb2.BotMessage | bytes


def _identity(data: bytes) -> bytes:
    return data


def _payload(message: Message) -> bytes:
    return message if isinstance(message, bytes) else message.SerializeToString()


# --- a few protobuf wire-format helpers, to send what the stubs would refuse to build ------
def _varint(value: int) -> bytes:
    value &= (1 << 64) - 1
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _field(number: int, payload: bytes) -> bytes:
    """A length-delimited field."""
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _unknown_fields(rng: random.Random) -> bytes:
    """Fields no BotMessage defines, holding random bytes: parsers must skip them."""
    blob = rng.randbytes(rng.randrange(1, 64))
    return _field(rng.randrange(16, 2000), blob) + _varint(rng.randrange(16, 2000) << 3) + b"\x07"


def _action(request_id: int, choice: cards_pb2.Choice | None = None) -> bot_pb2.BotMessage:
    action = bot_pb2.Action(request_id=request_id)
    if choice is not None:
        action.choice.CopyFrom(choice)
    return bot_pb2.BotMessage(action=action)


def _raw_action(request_id: int, choice: bytes) -> bytes:
    """An Action whose Choice is given as raw bytes."""
    action = _varint(1 << 3) + _varint(request_id) + _field(2, choice)
    return _field(2, action)


class Recorder:
    """The JSON Lines file of everything this process saw and did."""

    def __init__(self, path: Path) -> None:
        self._file: IO[str] = path.open("a", encoding="utf-8", buffering=1)

    def write(self, record: dict[str, Any]) -> None:
        record["t"] = round(time.time(), 3)
        self._file.write(json.dumps(record, separators=(",", ":")) + "\n")


class Stream:
    """One Play call; anything may be sent on it, everything received is recorded."""

    _numbers = iter(range(1, 1 << 62))

    def __init__(
        self,
        bot: HostileBot,
        purpose: str,
        channel: grpc.aio.Channel | None = None,
        session: int | None = None,
    ) -> None:
        self.bot = bot
        self.number = next(Stream._numbers)
        self.purpose = purpose
        opened: dict[str, Any] = {"kind": "open", "stream": self.number, "purpose": purpose}
        if session is not None:
            opened["session"] = session
        bot.recorder.write(opened)
        play = (channel or bot.channel).stream_stream(
            PLAY_METHOD,
            request_serializer=_identity,
            response_deserializer=bot_pb2.RefereeMessage.FromString,
        )
        self.call = play()
        self.ended = False
        self.code = ""
        self.details = ""
        self.match_id = ""
        self._pending: asyncio.Future[bot_pb2.RefereeMessage | None] | None = None

    async def send(self, message: Message) -> bool:
        """Send; False once the stream is over."""
        if self.ended:
            return False
        try:
            await self.call.write(_payload(message))
        except (grpc.aio.AioRpcError, grpc.aio.UsageError, asyncio.InvalidStateError):
            return False
        return True

    async def close_writing(self) -> None:
        with contextlib.suppress(grpc.aio.AioRpcError, grpc.aio.UsageError):
            await self.call.done_writing()

    def cancel(self) -> None:
        self.call.cancel()

    async def read(self) -> bot_pb2.RefereeMessage | None:
        """The next message, recorded; None at the end (its status recorded once)."""
        if self._pending is not None:
            pending, self._pending = self._pending, None
            return await pending
        return await self._read()

    async def read_within(self, timeout: float) -> tuple[bool, bot_pb2.RefereeMessage | None]:
        """Like :meth:`read`, giving up after ``timeout`` seconds: (False, None) then. A read
        that times out is kept for the next call (cancelling it would cancel the call)."""
        if self._pending is None:
            self._pending = asyncio.ensure_future(self._read())
        done, _ = await asyncio.wait({self._pending}, timeout=timeout)
        if not done:
            return False, None
        return True, await self.read()

    async def _read(self) -> bot_pb2.RefereeMessage | None:
        if self.ended:
            return None
        try:
            message = await self.call.read()
        except grpc.aio.AioRpcError as error:
            self._end(error.code().name, error.details() or "")
            return None
        except asyncio.CancelledError:
            if self.call.cancelled():
                self._end("CANCELLED", "cancelled by the bot")
                return None
            raise
        if message is grpc.aio.EOF:
            self._end("OK", "")
            return None
        assert isinstance(message, bot_pb2.RefereeMessage)
        self.bot.recorder.write(
            {
                "kind": "msg",
                "stream": self.number,
                "type": message.WhichOneof("kind"),
                "msg": json_format.MessageToDict(message),
            }
        )
        return message

    async def drain(self) -> None:
        while await self.read() is not None:
            pass

    def _end(self, code: str, details: str) -> None:
        self.ended = True
        self.code, self.details = code, details
        self.bot.recorder.write(
            {
                "kind": "end",
                "stream": self.number,
                "purpose": self.purpose,
                "code": code,
                "details": details[:300],
            }
        )


class HostileBot:
    """Plays like a well-behaved bot; the behaviour subclasses misbehave at chosen points."""

    resume_after_drop = True

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.token: str = args.token
        self.name: str = args.name or args.behaviour
        self.rng = random.Random(args.seed)
        self.recorder = Recorder(Path(args.out))
        self._channel: grpc.aio.Channel | None = None
        self.tasks: set[asyncio.Task[None]] = set()

    @property
    def channel(self) -> grpc.aio.Channel:
        """The bot's channel (made in the running event loop, as grpc.aio needs)."""
        if self._channel is None:
            self._channel = grpc.aio.insecure_channel(self.args.server)
        return self._channel

    # --- plumbing --------------------------------------------------------------------------
    def fault(self, stream: Stream | None, what: str, expect: str) -> None:
        self.recorder.write(
            {
                "kind": "fault",
                "stream": stream.number if stream else 0,
                "what": what,
                "expect": expect,
            }
        )

    def spawn(self, coroutine: Any) -> None:
        task: asyncio.Task[None] = asyncio.ensure_future(coroutine)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def hello(
        self, token: str | None = None, resume: str = "", protocol_version: int = PROTOCOL_VERSION
    ) -> bot_pb2.BotMessage:
        return bot_pb2.BotMessage(
            hello=bot_pb2.Hello(
                token=self.token if token is None else token,
                bot_name=self.name,
                bot_version="hostile-1",
                protocol_version=protocol_version,
                resume_match_id=resume,
            )
        )

    async def attempt(self, purpose: str, *messages: Message, expect: str) -> Stream:
        """Open a stream, send ``messages`` and read it to the end the referee gives it (not
        half-closing first: a grpc.aio client that writes after the server ended the call
        reports INTERNAL instead of the server's status, grpc/grpc#36066)."""
        stream = Stream(self, purpose)
        self.fault(stream, purpose, expect)
        for message in messages:
            await stream.send(message)
        while not stream.ended:
            arrived, _ = await stream.read_within(ATTEMPT_WAIT_S)
            if not arrived:
                await stream.close_writing()  # the referee kept it open: end it ourselves
        return stream

    async def probe_resume(self, match_id: str, purpose: str, expect: str) -> Stream:
        """Say hello with ``resume_match_id``; after Welcome wait briefly for a MatchStarted,
        then leave. Records ``{"kind": "probe", "outcome": ...}``: the status, "lobby" or
        "resumed"."""
        stream = Stream(self, purpose)
        self.fault(stream, f"{purpose}: resume {match_id}", expect)
        await stream.send(self.hello(resume=match_id))
        outcome = ""
        first = await stream.read()
        if first is not None and first.WhichOneof("kind") == "welcome":
            arrived, second = await stream.read_within(PROBE_WAIT_S)
            if not arrived:
                outcome = "lobby"
            elif second is not None:
                outcome = "resumed"
        await stream.close_writing()  # the session ends; a seat it took would wait for a resume
        await stream.drain()
        self.recorder.write(
            {
                "kind": "probe",
                "stream": stream.number,
                "match_id": match_id,
                "outcome": outcome or stream.code,
            }
        )
        return stream

    # --- the process ------------------------------------------------------------------------
    async def main(self) -> None:
        await self.before_play()
        sessions = [Session(self, n) for n in range(self.args.tables)]
        loops = [asyncio.ensure_future(session.run()) for session in sessions]
        await asyncio.gather(*(session.welcomed.wait() for session in sessions))
        self.recorder.write({"kind": "ready"})
        await asyncio.gather(*loops)

    async def before_play(self) -> None:
        """Attacks before the seat sessions open."""

    # --- hooks of a seat session --------------------------------------------------------------
    async def on_match_started(self, session: Session, stream: Stream) -> None:
        pass

    async def on_request(
        self, session: Session, stream: Stream, request: bot_pb2.DecisionRequest
    ) -> None:
        await self.answer(stream, request)

    async def on_rejected(
        self, session: Session, stream: Stream, rejected: bot_pb2.ActionRejected
    ) -> None:
        pass

    async def answer(
        self, stream: Stream, request: bot_pb2.DecisionRequest, suffix: bytes = b""
    ) -> None:
        choice = request.legal[self.rng.randrange(len(request.legal))]
        await stream.send(_action(request.request_id, choice).SerializeToString() + suffix)


class Session:
    """One seat session of the bot across its streams: reconnects, resumes a running match."""

    def __init__(self, bot: HostileBot, number: int) -> None:
        self.bot = bot
        self.number = number
        self.match_id = ""
        self.requests_in_match: set[int] = set()
        # What a behaviour remembers about the current match (reset when a new one starts).
        self.match_state: dict[str, Any] = {}
        self.max_strikes = 3
        self.welcomed = asyncio.Event()
        self.resume_next = True

    async def run(self) -> None:
        delay = RECONNECT_DELAY_S
        while True:
            resume = self.match_id if self.resume_next else ""
            self.resume_next = True
            stream = Stream(self.bot, "resume" if resume else "play", session=self.number)
            await stream.send(self.bot.hello(resume=resume))
            welcomed = await self.play(stream)
            if not welcomed and stream.code in ("UNAUTHENTICATED", "PERMISSION_DENIED"):
                self.match_id = ""  # a resume refused for good: come back fresh
            delay = RECONNECT_DELAY_S if welcomed else min(delay * 2, RECONNECT_MAX_DELAY_S)
            await asyncio.sleep(delay)

    async def play(self, stream: Stream) -> bool:
        welcomed = False
        while (message := await stream.read()) is not None:
            kind = message.WhichOneof("kind")
            if kind == "welcome":
                welcomed = True
                self.welcomed.set()
            elif kind == "match_started":
                stream.match_id = message.match_started.match_id
                self.max_strikes = message.match_started.time_control.max_strikes
                if stream.match_id != self.match_id:
                    self.match_id = stream.match_id
                    self.requests_in_match = set()
                    self.match_state = {}
                    await self.bot.on_match_started(self, stream)
            elif kind == "request":
                self.requests_in_match.add(message.request.request_id)
                await self.bot.on_request(self, stream, message.request)
            elif kind == "rejected":
                await self.bot.on_rejected(self, stream, message.rejected)
            elif kind == "match_ended":
                self.match_id = ""
        if not self.bot.resume_after_drop:
            self.resume_next = False
        return welcomed


# --- the behaviours -----------------------------------------------------------------------
class Honest(HostileBot):
    pass


class Silent(HostileBot):
    async def on_request(
        self, session: Session, stream: Stream, request: bot_pb2.DecisionRequest
    ) -> None:
        self.fault(stream, f"no answer to request {request.request_id}", "strike:timeout")


class Late(HostileBot):
    async def on_request(
        self, session: Session, stream: Stream, request: bot_pb2.DecisionRequest
    ) -> None:
        self.fault(stream, f"late answer to request {request.request_id}", "strike:timeout")
        self.spawn(self._late(stream, request))

    async def _late(self, stream: Stream, request: bot_pb2.DecisionRequest) -> None:
        await asyncio.sleep((request.move_ms + request.bank_ms) / 1000 + LATE_MARGIN_S)
        await self.answer(stream, request)


class Illegal(HostileBot):
    """Only illegal choices, as many as the match's max_strikes (each one is a strike)."""

    async def on_request(
        self, session: Session, stream: Stream, request: bot_pb2.DecisionRequest
    ) -> None:
        session.match_state["open"] = request
        await self._illegal(session, stream, request)

    async def on_rejected(
        self, session: Session, stream: Stream, rejected: bot_pb2.ActionRejected
    ) -> None:
        request: bot_pb2.DecisionRequest | None = session.match_state.get("open")
        if request is not None and rejected.request_id == request.request_id:
            await self._illegal(session, stream, request)

    async def _illegal(
        self, session: Session, stream: Stream, request: bot_pb2.DecisionRequest
    ) -> None:
        sent: int = session.match_state.get("sent", 0)
        if sent >= session.max_strikes:
            return
        session.match_state["sent"] = sent + 1
        choice, code = illegal_choice(request, self.rng)
        self.fault(stream, f"illegal choice for request {request.request_id}", f"strike:{code}")
        await stream.send(_action(request.request_id, choice))


def illegal_choice(
    request: bot_pb2.DecisionRequest, rng: random.Random
) -> tuple[cards_pb2.Choice, str]:
    """A choice the request does not allow, and the penalty code it must earn."""
    if request.phase == cards_pb2.PHASE_BID:
        return cards_pb2.Choice(bid=cards_pb2.Bid(contract="grand-slam")), "illegal"
    if request.phase == cards_pb2.PHASE_CARD:
        legal = {(c.card.suit, c.card.rank) for c in request.legal}
        held = {(c.suit, c.rank) for c in request.view.hand}
        cards = [
            (suit, rank)
            for suit in (1, 2, 3, 4)
            for rank in (1, 2, 3, 4, 5, 6, 7, 8)
            if (suit, rank) not in legal
        ]
        # Prefer a card of another seat's hand (or of the part of the deck nobody holds).
        foreign = [card for card in cards if card not in held] or cards
        suit, rank = rng.choice(foreign)
        card = cards_pb2.Card(
            suit=cards_pb2.Suit.ValueType(suit), rank=cards_pb2.Rank.ValueType(rank)
        )
        return cards_pb2.Choice(card=card), "illegal"
    # Naming trump: every suit is legal, so the illegal answer is one of the wrong kind.
    card = cards_pb2.Card(suit=cards_pb2.SUIT_CLUBS, rank=cards_pb2.RANK_ACE)
    return cards_pb2.Choice(card=card), "malformed"


class Stale(HostileBot):
    async def on_request(
        self, session: Session, stream: Stream, request: bot_pb2.DecisionRequest
    ) -> None:
        rid = request.request_id
        for wrong, what in ((rid - 1, "stale"), (rid + 1, "foreign"), ((1 << 64) - 1, "foreign")):
            self.fault(stream, f"{what} request id {wrong} (open: {rid})", "stale")
            await stream.send(_action(wrong, request.legal[0]))
        self.fault(stream, f"no answer to request {rid}", "strike:timeout")


class SecondHello(HostileBot):
    resume_after_drop = False

    async def on_request(
        self, session: Session, stream: Stream, request: bot_pb2.DecisionRequest
    ) -> None:
        if not session.match_state.get("done"):
            session.match_state["done"] = True
            self.fault(stream, "a second hello", "status:INVALID_ARGUMENT")
            await stream.send(self.hello())
            return
        await self.answer(stream, request)


class ActionFirst(HostileBot):
    async def before_play(self) -> None:
        # Nothing after the offending message: a grpc.aio client that writes after the
        # referee ended the stream reports INTERNAL instead of the referee's status
        # (grpc/grpc#36066).
        await self.attempt(
            "action before hello",
            _action(1, cards_pb2.Choice(bid=cards_pb2.Bid(contract="pass"))),
            expect="status:INVALID_ARGUMENT",
        )
        await self.attempt(
            "log before hello",
            bot_pb2.BotMessage(log=bot_pb2.BotLog(text="hi")),
            expect="status:INVALID_ARGUMENT",
        )
        await self.attempt("empty message before hello", b"", expect="status:INVALID_ARGUMENT")


class Oversize(HostileBot):
    """A message over the protocol's cap, then one over gRPC's own; each ends the stream,
    and the bot resumes its seat both times."""

    async def on_request(
        self, session: Session, stream: Stream, request: bot_pb2.DecisionRequest
    ) -> None:
        state = session.match_state
        if not state.get("oversize"):
            state["oversize"] = True
            self.fault(stream, f"{OVERSIZE_BYTES}-byte log", "status:INVALID_ARGUMENT")
            text = "x" * OVERSIZE_BYTES
            await stream.send(bot_pb2.BotMessage(log=bot_pb2.BotLog(text=text)))
            return
        if not state.get("huge"):
            state["huge"] = True
            self.fault(stream, f"{HUGE_BYTES}-byte action", "status:RESOURCE_EXHAUSTED")
            bid = cards_pb2.Choice(bid=cards_pb2.Bid(contract="y" * HUGE_BYTES))
            await stream.send(_action(request.request_id, bid))
            return
        await self.answer(stream, request)


class Flood(HostileBot):
    resume_after_drop = False

    async def before_play(self) -> None:
        logs = [bot_pb2.BotMessage(log=bot_pb2.BotLog(text="lobby")) for _ in range(FLOOD_LOBBY)]
        await self.attempt(
            f"{FLOOD_LOBBY} messages in the lobby",
            self.hello(),
            *logs,
            expect="status:INVALID_ARGUMENT",
        )

    async def on_request(
        self, session: Session, stream: Stream, request: bot_pb2.DecisionRequest
    ) -> None:
        if session.match_state.get("done"):
            await self.answer(stream, request)
            return
        session.match_state["done"] = True
        self.fault(
            stream,
            f"{FLOOD_PER_REQUEST} messages for request {request.request_id}",
            "strike:protocol_error",
        )
        stale = _action(request.request_id - 1, request.legal[0]).SerializeToString()
        for _ in range(FLOOD_PER_REQUEST):
            if not await stream.send(stale):
                return
        # Cut off while still writing, a grpc.aio client may report INTERNAL ("Internal error
        # from Core") instead of the referee's INVALID_ARGUMENT (grpc/grpc#36066).
        self.fault(stream, f"then {FLOOD_LOG_BYTES}-byte logs", "status:INVALID_ARGUMENT|INTERNAL")
        self.spawn(self._logs(stream))

    async def _logs(self, stream: Stream) -> None:
        log = bot_pb2.BotMessage(log=bot_pb2.BotLog(text="z" * FLOOD_LOG_BYTES))
        for _ in range(FLOOD_LOGS):
            if not await stream.send(log):
                return


class Garbage(HostileBot):
    """Bytes that are no BotMessage, enum values outside their enums, unknown fields."""

    async def before_play(self) -> None:
        await self.attempt(
            "undecodable first message", b"\xff\xff\xff\xff\x0f", expect="status:INVALID_ARGUMENT"
        )
        bad_token = _field(1, _field(1, b"\xff\xfe\xfd") + _varint(4 << 3) + _varint(1))
        await self.attempt(
            "hello whose token is not UTF-8", bad_token, expect="status:INVALID_ARGUMENT"
        )
        await self.attempt(
            "hello with unknown fields and protocol_version 99",
            self.hello(protocol_version=99).SerializeToString() + _unknown_fields(self.rng),
            expect="status:FAILED_PRECONDITION",
        )

    async def on_request(
        self, session: Session, stream: Stream, request: bot_pb2.DecisionRequest
    ) -> None:
        state = session.match_state
        state["open"] = request
        rid = request.request_id
        step = state.get("step", 0)
        if step in (0, 2):
            state["step"] = step + 1
            value = 99 if step == 0 else -7
            self.fault(stream, f"enum value {value} in request {rid}'s answer", "strike:malformed")
            await stream.send(_raw_action(rid, _out_of_range(request.phase, value)))
            return
        if step == 1:
            state["step"] = 2
            self.fault(stream, "a bid whose contract is not UTF-8", "status:INVALID_ARGUMENT")
            await stream.send(_raw_action(rid, _field(1, _field(1, b"\xc3\x28pass"))))
            return
        await self.answer(stream, request, suffix=_unknown_fields(self.rng))

    async def on_rejected(
        self, session: Session, stream: Stream, rejected: bot_pb2.ActionRejected
    ) -> None:
        request: bot_pb2.DecisionRequest | None = session.match_state.get("open")
        if request is not None and rejected.request_id == request.request_id:
            self.fault(stream, "the answer with unknown fields", "accepted")
            await self.answer(stream, request, suffix=_unknown_fields(self.rng))


def _out_of_range(phase: int, value: int) -> bytes:
    """A Choice (raw bytes) holding an enum value outside its enum."""
    if phase == cards_pb2.PHASE_CARD:
        return _field(3, _varint(1 << 3) + _varint(value) + _varint(2 << 3) + _varint(value))
    # A trump suit; for a bid it is also of the wrong kind (a malformed answer either way).
    return _varint(2 << 3) + _varint(value)


class DropResume(HostileBot):
    async def on_request(
        self, session: Session, stream: Stream, request: bot_pb2.DecisionRequest
    ) -> None:
        count = len(session.requests_in_match)
        dropped: set[int] = session.match_state.setdefault("dropped", set())
        if count in DROP_AT and count not in dropped:
            dropped.add(count)
            self.fault(stream, f"drop at request {request.request_id}, then resume", "resume")
            if count == DROP_AT[1]:
                await stream.close_writing()  # a polite close
            else:
                stream.cancel()  # a broken connection
            return
        await self.answer(stream, request)


class DropLoop(HostileBot):
    async def on_request(
        self, session: Session, stream: Stream, request: bot_pb2.DecisionRequest
    ) -> None:
        self.fault(stream, f"drop at request {request.request_id}, then resume", "resume-limit")
        stream.cancel()


class DropForever(HostileBot):
    resume_after_drop = False

    async def on_request(
        self, session: Session, stream: Stream, request: bot_pb2.DecisionRequest
    ) -> None:
        if not session.match_state.get("done"):
            session.match_state["done"] = True
            self.fault(stream, "close for good mid-deal", "forfeit:disconnected")
            stream.cancel()
            return
        await self.answer(stream, request)


class ForeignResume(HostileBot):
    async def before_play(self) -> None:
        await self.probe_resume("m_0000000000000000", "made-up match id", "lobby")
        self.spawn(self._watch())

    async def _watch(self) -> None:
        seen: set[str] = set()
        path = Path(self.args.foreign_file)
        while True:
            with contextlib.suppress(OSError):
                for match_id in path.read_text().split():
                    if match_id not in seen:
                        seen.add(match_id)
                        await self.probe_resume(
                            match_id, "someone else's match id", "status:PERMISSION_DENIED"
                        )
            await asyncio.sleep(0.05)


class SharedToken(HostileBot):
    async def on_match_started(self, session: Session, stream: Stream) -> None:
        if self.args.probe:
            self.spawn(
                self.probe_resume(stream.match_id, "resume a seat that is connected", "lobby")
            )


class BadToken(HostileBot):
    async def before_play(self) -> None:
        for what, token in (
            ("made-up token", "made-up-" + self.rng.randbytes(16).hex()),
            ("empty token", ""),
            ("12 KiB token", "t" * 12 * 1024),
            ("real token plus a character", self.token + "x"),
        ):
            await self.attempt(what, self.hello(token=token), expect="status:UNAUTHENTICATED")


class Revoked(HostileBot):
    async def before_play(self) -> None:
        for n in range(2):
            await self.attempt(
                f"revoked token, try {n + 1}",
                self.hello(token=self.args.alt_token),
                expect="status:UNAUTHENTICATED",
            )


class ManyStreams(HostileBot):
    """A burst of streams at once when seated: one at a time, BURST_EVERY_S after the referee
    answered the last (a sustained flood of new streams is another attack, on gRPC's
    acceptance of calls, which takes them one by one whatever the referee's load)."""

    last_burst = -BURST_EVERY_S
    bursting = False

    async def on_match_started(self, session: Session, stream: Stream) -> None:
        if not self.bursting and time.monotonic() - self.last_burst >= BURST_EVERY_S:
            self.bursting = True
            self.spawn(self._paced_burst())

    async def _paced_burst(self) -> None:
        try:
            await self._burst()
        finally:
            self.last_burst = time.monotonic()
            self.bursting = False

    async def _burst(self) -> None:
        self.fault(None, f"{BURST_STREAMS} streams at once", "session-cap")
        streams = [Stream(self, "burst") for _ in range(BURST_STREAMS)]
        await asyncio.gather(*(s.send(self.hello()) for s in streams))
        firsts = await asyncio.gather(*(s.read() for s in streams))
        welcomed = sum(1 for m in firsts if m is not None and m.WhichOneof("kind") == "welcome")
        codes: dict[str, int] = {}
        for s in streams:
            if s.ended:
                codes[s.code] = codes.get(s.code, 0) + 1
        self.recorder.write({"kind": "burst", "welcomed": welcomed, "ended": codes})
        for s in streams:
            s.cancel()
        await asyncio.gather(*(s.drain() for s in streams))


class Idle(HostileBot):
    async def on_match_started(self, session: Session, stream: Stream) -> None:
        for _ in range(IDLE_STREAMS):
            idle = Stream(self, "idle")  # sends nothing, not even hello
            self.fault(idle, "connect and idle without hello", "status:DEADLINE_EXCEEDED")
            self.spawn(idle.drain())


class SlowReader(HostileBot):
    """Says hello and never reads until --go-file changes; then reads the stream to its end."""

    async def main(self) -> None:
        # No BDP probing and a small window: the referee's writes block as soon as the bot
        # stops reading, as with a bot whose machine hangs.
        channel = grpc.aio.insecure_channel(
            self.args.server,
            options=[("grpc.http2.bdp_probe", 0), ("grpc.http2.lookahead_bytes", 1024)],
        )
        go = Path(self.args.go_file)
        while True:
            mark = _stat(go)
            stream = Stream(self, "slow", channel)
            await stream.send(self.hello())
            self.recorder.write({"kind": "ready"})
            # Until released; a call that ends without a read (no referee to reach) is over.
            while _stat(go) == mark and not stream.call.done():  # noqa: ASYNC110 - a file
                await asyncio.sleep(0.05)
            if stream.call.done() and _stat(go) == mark:
                await stream.drain()  # records why, then a new stream
                await asyncio.sleep(RECONNECT_MAX_DELAY_S)
                continue
            self.fault(stream, "never read", "status:RESOURCE_EXHAUSTED")
            # Read what is there; a stream the referee left open is cancelled after a second
            # of silence (so its end says CANCELLED, not the referee's RESOURCE_EXHAUSTED).
            while not stream.ended:
                arrived, _ = await stream.read_within(1.0)
                if not arrived:
                    stream.purpose = "slow (left open by the referee)"
                    stream.cancel()
                    await stream.drain()


def _stat(path: Path) -> tuple[int, int]:
    try:
        info = path.stat()
    except OSError:
        return (0, 0)
    return (info.st_mtime_ns, info.st_size)


BEHAVIOURS: Final[dict[str, Callable[[argparse.Namespace], HostileBot]]] = {
    "honest": Honest,
    "silent": Silent,
    "late": Late,
    "illegal": Illegal,
    "stale": Stale,
    "second-hello": SecondHello,
    "action-first": ActionFirst,
    "oversize": Oversize,
    "flood": Flood,
    "garbage": Garbage,
    "drop-resume": DropResume,
    "drop-loop": DropLoop,
    "drop-forever": DropForever,
    "foreign-resume": ForeignResume,
    "shared-token": SharedToken,
    "bad-token": BadToken,
    "revoked": Revoked,
    "many-streams": ManyStreams,
    "idle": Idle,
    "slow-reader": SlowReader,
}


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--server", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--behaviour", required=True, choices=sorted(BEHAVIOURS))
    parser.add_argument("--out", required=True)
    parser.add_argument("--name", default="")
    parser.add_argument("--tables", type=int, default=1, help="seat sessions to play on")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--alt-token", default="")
    parser.add_argument("--foreign-file", default="")
    parser.add_argument("--go-file", default="")
    parser.add_argument("--probe", action="store_true", help="shared-token: probe a resume")
    return parser.parse_args(argv)


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    bot = BEHAVIOURS[args.behaviour](args)
    try:
        asyncio.run(bot.main())
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
