"""The floor of the referee benchmark: a bare ``grpc.aio`` server that replays a script.

The script is what the real referee sent in one recorded match: every (seat, ``RefereeMessage``)
in the order it was sent, and the points where the referee waited for a seat's answer (after each
``DecisionRequest``). The floor serves ``brandeln.v1.Referee.Play``, groups incoming sessions
into tables in arrival order and, per match, sends each table the same messages, of the same
kinds and sizes (only the match id is a fresh one of the same length), waiting at each request
for that seat's next message, whatever it says. No rules, no logs, no checks, no database: what
the referee costs above this is the price of refereeing.

It runs in a process of its own (``python -m brandeln.bench.referee.floor``, driven over stdin and
stdout like the load generator), a plain ``grpc.aio`` server with Python's defaults, as a bare
server written by anyone else would run: sharing the benchmark's process with the referee, it
would share the referee's settings (its collector's, for one) and its idle streams too.

>>> script = MatchScript(players=4, steps=())
>>> script.messages_per_seat()
[0, 0, 0, 0]
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import itertools
import json
import sys
import time
import uuid
from collections.abc import AsyncIterator, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc

from brandeln.bench.referee.loadgen import CONTROL_LINE_LIMIT, emit
from brandeln.bench.referee.loop_profile import LoopProfile
from brandeln.v1 import bot_pb2, bot_pb2_grpc

__all__ = ["FloorServer", "MatchScript", "ScriptStep", "main", "new_match_id"]

PROTOCOL_VERSION = 1
_MATCH_ID_KINDS = ("match_started", "match_ended")


def new_match_id(like: str) -> str:
    """A fresh match id as long as ``like`` (the referee's are ``m_`` and 16 hex digits)."""
    prefix = like[: like.find("_") + 1]
    digits = len(like) - len(prefix)
    fresh = ""
    while len(fresh) < digits:
        fresh += uuid.uuid4().hex
    return prefix + fresh[:digits]


@dataclass(frozen=True)
class ScriptStep:
    """Send ``message`` to ``seat``; then, if ``awaits_answer``, wait for that seat's answer."""

    seat: int
    message: bot_pb2.RefereeMessage
    awaits_answer: bool


@dataclass(frozen=True)
class MatchScript:
    """The messages of one match, in the order the referee sent them."""

    players: int
    steps: tuple[ScriptStep, ...]

    @classmethod
    def from_sent(
        cls, players: int, sent: Iterable[tuple[int, bot_pb2.RefereeMessage]]
    ) -> MatchScript:
        """Build a script from what a referee sent, (seat, message) in order.

        Each request is a wait point. A message object sent to several seats stays one object,
        so the floor, like the referee, builds it once and lets gRPC serialize it per stream.
        """
        copies: dict[int, bot_pb2.RefereeMessage] = {}
        steps = []
        for seat, message in sent:
            copy = copies.get(id(message))
            if copy is None:
                copy = bot_pb2.RefereeMessage()
                copy.CopyFrom(message)
                copies[id(message)] = copy
            steps.append(ScriptStep(seat, copy, message.WhichOneof("kind") == "request"))
        return cls(players, tuple(steps))

    @property
    def decisions(self) -> int:
        return sum(step.awaits_answer for step in self.steps)

    @property
    def match_id(self) -> str:
        for step in self.steps:
            if step.message.WhichOneof("kind") == "match_started":
                return step.message.match_started.match_id
        return ""

    def to_json(self) -> dict[str, Any]:
        """The script as JSON, each message as base64 of its bytes (:meth:`from_json`)."""
        return {
            "players": self.players,
            "steps": [
                [
                    step.seat,
                    base64.b64encode(step.message.SerializeToString()).decode(),
                    step.awaits_answer,
                ]
                for step in self.steps
            ],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> MatchScript:
        """The script :meth:`to_json` wrote; equal messages become one shared object again, as
        the referee sends one object to several seats."""
        parsed: dict[str, bot_pb2.RefereeMessage] = {}
        steps = []
        for seat, text, awaits_answer in data["steps"]:
            message = parsed.get(text)
            if message is None:
                message = parsed[text] = bot_pb2.RefereeMessage.FromString(base64.b64decode(text))
            steps.append(ScriptStep(int(seat), message, bool(awaits_answer)))
        return cls(int(data["players"]), tuple(steps))

    def messages_per_seat(self) -> list[int]:
        counts = [0] * self.players
        for step in self.steps:
            counts[step.seat] += 1
        return counts

    def bytes_per_seat(self) -> list[int]:
        sizes = [0] * self.players
        for step in self.steps:
            sizes[step.seat] += step.message.ByteSize()
        return sizes

    def for_match(self, match_id: str) -> list[tuple[int, bot_pb2.RefereeMessage, bool]]:
        """The steps with ``match_id`` in place of the recorded one (a copy per message)."""
        replaced: dict[int, bot_pb2.RefereeMessage] = {}
        steps = []
        for step in self.steps:
            message = step.message
            kind = message.WhichOneof("kind")
            if kind in _MATCH_ID_KINDS:
                copy = replaced.get(id(message))
                if copy is None:
                    copy = bot_pb2.RefereeMessage()
                    copy.CopyFrom(message)
                    if kind == "match_started":
                        copy.match_started.match_id = match_id
                    else:
                        copy.match_ended.match_id = match_id
                    replaced[id(message)] = copy
                message = copy
            steps.append((step.seat, message, step.awaits_answer))
        return steps


@dataclass(eq=False)
class _FloorSession:
    outbox: asyncio.Queue[bot_pb2.RefereeMessage | None] = field(default_factory=asyncio.Queue)
    inbox: asyncio.Queue[bot_pb2.BotMessage] = field(default_factory=asyncio.Queue)


class _FloorTable:
    def __init__(self, sessions: Sequence[_FloorSession]) -> None:
        self.sessions = list(sessions)

    async def play(self, script: MatchScript, matches: int) -> int:
        """Replay ``script`` ``matches`` times; the number of answers awaited."""
        answers = 0
        template = script.match_id
        sessions = self.sessions
        for _ in range(matches):
            for seat, message, awaits_answer in script.for_match(new_match_id(template)):
                session = sessions[seat]
                session.outbox.put_nowait(message)
                if awaits_answer:
                    await session.inbox.get()
                    answers += 1
        return answers


class _FloorServicer(bot_pb2_grpc.RefereeServicer):
    def __init__(self, floor: FloorServer) -> None:
        self.floor = floor

    async def Play(  # noqa: N802 - the RPC's name is the protocol's
        self,
        request_iterator: AsyncIterator[bot_pb2.BotMessage],
        context: grpc.aio.ServicerContext[bot_pb2.BotMessage, bot_pb2.RefereeMessage],
    ) -> AsyncIterator[bot_pb2.RefereeMessage]:
        messages = aiter(request_iterator)
        try:
            await anext(messages)  # the Hello, unread: the floor checks nothing
        except StopAsyncIteration:
            return
        session = _FloorSession()
        yield self.floor.welcome()
        reader = asyncio.create_task(self._read(session, messages))
        await self.floor.join(session)
        try:
            while True:
                message = await session.outbox.get()
                if message is None:
                    return
                yield message
        finally:
            reader.cancel()

    @staticmethod
    async def _read(session: _FloorSession, messages: AsyncIterator[bot_pb2.BotMessage]) -> None:
        async for message in messages:
            session.inbox.put_nowait(message)


class FloorServer:
    """The floor: serves ``Referee.Play`` on ``address`` and replays a script on its tables.

    Create, ``await start()``, let bots connect, ``await wait_for_tables(n)``, then
    ``await play(script, matches)`` as often as needed; ``await stop()``.
    """

    def __init__(self, address: str = "127.0.0.1:0", players: int = 4) -> None:
        self.address = address
        self.players = players
        self.port = 0
        self.server: grpc.aio.Server | None = None
        self.tables: list[_FloorTable] = []
        self._waiting: list[_FloorSession] = []
        self._joined = asyncio.Condition()
        self._session_ids = itertools.count(1)

    async def start(self) -> FloorServer:
        server = grpc.aio.server()
        bot_pb2_grpc.add_RefereeServicer_to_server(_FloorServicer(self), server)
        self.port = server.add_insecure_port(self.address)
        if self.port == 0:
            raise OSError(f"cannot bind {self.address}")
        await server.start()
        self.server = server
        return self

    @property
    def target(self) -> str:
        """``host:port`` where bots reach the floor."""
        return f"{self.address.rsplit(':', 1)[0]}:{self.port}"

    def welcome(self) -> bot_pb2.RefereeMessage:
        return bot_pb2.RefereeMessage(
            welcome=bot_pb2.Welcome(
                session_id=f"s{next(self._session_ids)}",
                bot_id="floor",
                protocol_version=PROTOCOL_VERSION,
                server_version="brandeln floor",
            )
        )

    async def join(self, session: _FloorSession) -> None:
        """Seat sessions in arrival order, a table per ``players`` of them."""
        self._waiting.append(session)
        if len(self._waiting) == self.players:
            self.tables.append(_FloorTable(self._waiting))
            self._waiting = []
        async with self._joined:
            self._joined.notify_all()

    async def wait_for_tables(self, tables: int, timeout: float = 30.0) -> None:
        async with asyncio.timeout(timeout), self._joined:
            await self._joined.wait_for(lambda: len(self.tables) >= tables)

    async def play(self, script: MatchScript, matches: int) -> int:
        """Play ``matches`` matches on every table at once; the number of answers awaited."""
        if script.players != self.players:
            raise ValueError(f"the script seats {script.players}, the floor {self.players}")
        counts = await asyncio.gather(*(table.play(script, matches) for table in self.tables))
        return sum(counts)

    async def stop(self, grace: float = 0.5) -> None:
        for table in self.tables:
            for session in table.sessions:
                session.outbox.put_nowait(None)
        for session in self._waiting:
            session.outbox.put_nowait(None)
        if self.server is not None:
            await self.server.stop(grace)
            self.server = None


async def _serve(address: str, players: int) -> int:
    """The floor in this process, driven over stdin/stdout, one JSON object per line:

    - out, first: ``{"port": n}`` once it serves (or ``{"error": ...}``);
    - in ``{"cmd": "tables", "tables": n}``: wait for n tables of connected sessions; out: ok;
    - in ``{"cmd": "script", "script": {...}}`` (:meth:`MatchScript.to_json`); out: ok;
    - in ``{"cmd": "cpu"}``: out ``{"cpu_s": x}``, this process's CPU time so far (every
      thread, gRPC's own included: what the benchmark counts for a server);
    - in ``{"cmd": "play", "matches": m}``: the script m times on every table; out
      ``{"answers": n}`` once done;
    - in ``{"cmd": "loop_start"}``: time the loop's callbacks (:class:`LoopProfile`); out: ok;
      in ``{"cmd": "loop_stop"}``: out ``{"loop": {name: [cpu_s, runs]}}`` since the start;
    - in ``{"cmd": "quit"}`` or the end of input: stop.
    """
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=CONTROL_LINE_LIMIT)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    try:
        floor = await FloorServer(address, players).start()
    except OSError as error:
        emit({"error": str(error)})
        return 1
    emit({"port": floor.port})
    script: MatchScript | None = None
    profile: LoopProfile | None = None
    try:
        while line := await reader.readline():
            command = json.loads(line)
            name = command.get("cmd")
            if name == "quit":
                break
            if name == "tables":
                await floor.wait_for_tables(int(command["tables"]))
                emit({"ok": True})
            elif name == "script":
                script = MatchScript.from_json(command["script"])
                emit({"ok": True})
            elif name == "cpu":
                emit({"cpu_s": time.process_time()})
            elif name == "play" and script is not None:
                emit({"answers": await floor.play(script, int(command["matches"]))})
            elif name == "loop_start" and profile is None:
                profile = LoopProfile()
                profile.start()
                emit({"ok": True})
            elif name == "loop_stop" and profile is not None:
                profile.stop()
                emit({"loop": profile.as_json()})
                profile = None
            else:
                emit({"error": f"not a command here: {line.decode(errors='replace')[:80]}"})
    finally:
        await floor.stop()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m brandeln.bench.referee.floor",
        description="The referee benchmark's floor in a process of its own, driven over stdin.",
    )
    parser.add_argument("--address", default="127.0.0.1:0")
    parser.add_argument("--players", type=int, default=4)
    args = parser.parse_args(argv)
    return asyncio.run(_serve(args.address, args.players))


if __name__ == "__main__":
    raise SystemExit(main())
