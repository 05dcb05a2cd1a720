"""The load generator of the referee benchmark: many instant bots in one process.

``python -m brandeln.bench.referee.loadgen ADDRESS [--snapshot-only] [--streams-per-channel N]``

It opens one ``brandeln.v1.Referee.Play`` stream per token, says ``Hello`` on each and answers
every ``DecisionRequest`` at once with its first legal choice (``legal[0]``). Every group of
``--streams-per-channel`` streams (default 4, one table's worth) shares one channel, and each
channel is its own TCP connection, as four bot processes would have.

It is driven over stdin/stdout, one JSON object per line:

- in: ``{"tokens": [...]}`` (the first line): one stream per token, in that order;
- out: ``{"ready": n}`` once all n streams have their ``Welcome`` (or ``{"error": ...}``);
- in: ``{"cmd": "reset"}``: forget all figures; out: ``{"ok": true}``;
- in: ``{"cmd": "admin", "address": A, "token": T}``: open an ``Admin`` channel; out: ok;
- in: ``{"cmd": "run", "seatings": [[bot ids by seat], ...], "matches": M, "request": {...}}``:
  play M matches on each seating, all seatings at once, each through ``Admin.RunMatch`` (the
  request's other fields, e.g. ruleset, deals, seed, from ``request``); out: ``{"ok": true}``
  once every match has finished (``{"error": ...}`` if one did not). Driving the referee from
  here keeps the Admin client's CPU out of the referee's process;
- in: ``{"cmd": "report", "matches": M}``: wait until every stream has seen M ``MatchEnded``
  since the reset, then out: the figures (see :meth:`LoadGenerator.report`);
- in: ``{"cmd": "quit"}`` (or end of input): close every stream and exit.

Latency, as measured here: for each table (the streams that share a ``match_id``), from the
moment one of its seats starts writing its answer to the moment the table's next
``DecisionRequest`` arrives at any of its seats, as this process sees it (``perf_counter_ns``
after ``read()`` returns). It is the server's turnaround per decision, transport both ways
included; the last decision of a match has no successor and gives no sample.

To stay out of the server's way on a small machine, messages travel as raw bytes and only the
ones a bot must read (``MatchStarted``, ``DecisionRequest``) are parsed; the others are told
apart by their first byte, the tag of the ``RefereeMessage`` oneof field they carry.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc
from google.protobuf import json_format

from brandeln.arena.latency import percentile
from brandeln.v1 import admin_pb2, bot_pb2

__all__ = ["CONTROL_LINE_LIMIT", "LoadGenerator", "emit", "main"]

PROTOCOL_VERSION = 1
_PLAY_METHOD = bot_pb2.DESCRIPTOR.services_by_name["Referee"].methods_by_name["Play"]
PLAY_PATH = f"/{_PLAY_METHOD.containing_service.full_name}/{_PLAY_METHOD.name}"
_RUN_MATCH_METHOD = admin_pb2.DESCRIPTOR.services_by_name["Admin"].methods_by_name["RunMatch"]
RUN_MATCH_PATH = f"/{_RUN_MATCH_METHOD.containing_service.full_name}/{_RUN_MATCH_METHOD.name}"
_WIRE_TYPE_LENGTH_DELIMITED = 2
_REPORT_TIMEOUT_S = 120.0
# Control lines carry a few kilobytes; leave room.
CONTROL_LINE_LIMIT = 1 << 22


def _first_byte_kinds() -> dict[int, str]:
    """The first byte of a serialized RefereeMessage -> the oneof field it holds."""
    kinds = {}
    for field_descriptor in bot_pb2.RefereeMessage.DESCRIPTOR.oneofs_by_name["kind"].fields:
        tag = field_descriptor.number << 3 | _WIRE_TYPE_LENGTH_DELIMITED
        if tag > 0x7F:  # a two-byte varint tag: not the case for fields 1..15
            raise ValueError(f"field {field_descriptor.name} has a multi-byte tag")
        kinds[tag] = field_descriptor.name
    return kinds


_KIND_BY_FIRST_BYTE = _first_byte_kinds()


@dataclass(eq=False)
class _TableClock:
    """When a seat of one table last started writing an answer (None: no answer open)."""

    answered_at_ns: int | None = None


@dataclass(eq=False)
class _Stream:
    index: int
    token: str
    seat: int | None = None
    match_id: str = ""
    table: _TableClock | None = None
    welcomed: asyncio.Event = field(default_factory=asyncio.Event)
    matches_ended: int = 0


@dataclass
class _Figures:
    """What was measured since the last reset."""

    decisions: int = 0
    latencies_ns: list[int] = field(default_factory=list)
    messages_by_seat: dict[int, int] = field(default_factory=dict)
    bytes_by_seat: dict[int, int] = field(default_factory=dict)
    kinds: dict[str, int] = field(default_factory=dict)
    cpu_started: float = field(default_factory=time.process_time)
    wall_started: float = field(default_factory=time.perf_counter)


class AdminDriver:
    """Runs matches through ``Admin.RunMatch``; the updates are read as raw bytes and only the
    last one, the result, is parsed."""

    def __init__(self, address: str, token: str) -> None:
        self.channel = grpc.aio.insecure_channel(address)
        self.metadata = (("authorization", f"Bearer {token}"),)
        self._run_match: grpc.aio.UnaryStreamMultiCallable[admin_pb2.RunMatchRequest, bytes] = (
            self.channel.unary_stream(
                RUN_MATCH_PATH, request_serializer=admin_pb2.RunMatchRequest.SerializeToString
            )
        )

    async def run_match(self, request: admin_pb2.RunMatchRequest) -> admin_pb2.MatchSummary:
        """Play one match; its summary (RuntimeError unless it finished)."""
        last = b""
        async for data in self._run_match(request, metadata=self.metadata):
            last = data
        update = admin_pb2.MatchUpdate.FromString(last)
        if update.WhichOneof("kind") != "result" or update.result.status != "finished":
            raise RuntimeError(f"a match did not finish: {update}")
        return update.result

    async def run(
        self, template: admin_pb2.RunMatchRequest, seatings: Sequence[Sequence[str]], matches: int
    ) -> None:
        """``matches`` matches on every seating, the seatings at once."""

        async def one_table(bot_ids: Sequence[str]) -> None:
            request = admin_pb2.RunMatchRequest()
            request.CopyFrom(template)
            request.bot_ids[:] = bot_ids
            for _ in range(matches):
                await self.run_match(request)

        await asyncio.gather(*(one_table(seating) for seating in seatings))

    async def close(self) -> None:
        await self.channel.close()


class LoadGenerator:
    """Play streams of instant bots against ``address`` and measure the server's turnaround."""

    def __init__(
        self,
        address: str,
        tokens: Sequence[str],
        *,
        snapshot_only: bool = False,
        streams_per_channel: int = 4,
    ) -> None:
        self.address = address
        self.snapshot_only = snapshot_only
        self.streams = [_Stream(i, token) for i, token in enumerate(tokens)]
        self.streams_per_channel = max(1, streams_per_channel)
        self.channels: list[grpc.aio.Channel] = []
        self.tasks: list[asyncio.Task[None]] = []
        self.tables: dict[str, _TableClock] = {}
        self.figures = _Figures()
        self.failed: str | None = None
        self._progress = asyncio.Condition()

    async def start(self) -> None:
        """Open the streams one after another, each once the previous one has its Welcome, so
        the server sees them arrive in token order (the floor seats them in that order)."""
        channel: grpc.aio.Channel | None = None
        for stream in self.streams:
            if stream.index % self.streams_per_channel == 0:
                # A local subchannel pool gives every channel its own connection.
                channel = grpc.aio.insecure_channel(
                    self.address, options=[("grpc.use_local_subchannel_pool", 1)]
                )
                self.channels.append(channel)
            assert channel is not None
            task = asyncio.create_task(self._play(channel, stream), name=f"stream-{stream.index}")
            self.tasks.append(task)
            welcomed = asyncio.create_task(stream.welcomed.wait())
            await asyncio.wait([welcomed, task], return_when=asyncio.FIRST_COMPLETED)
            if not stream.welcomed.is_set():
                welcomed.cancel()
                error = task.exception() if task.done() else None
                raise RuntimeError(self.failed or f"stream {stream.index} ended: {error}")

    async def _play(self, channel: grpc.aio.Channel, stream: _Stream) -> None:
        play: grpc.aio.StreamStreamMultiCallable[bytes, bytes] = channel.stream_stream(PLAY_PATH)
        call = play()
        hello = bot_pb2.BotMessage(
            hello=bot_pb2.Hello(
                token=stream.token,
                # Fixed width: MatchStarted (which names the players) keeps one size per run.
                bot_name=f"bench-{stream.index:05d}",
                bot_version="loadgen",
                protocol_version=PROTOCOL_VERSION,
                snapshot_only=self.snapshot_only,
            )
        )
        await call.write(hello.SerializeToString())
        kinds = _KIND_BY_FIRST_BYTE
        clock = time.perf_counter_ns
        try:
            while True:
                data = await call.read()
                if data is grpc.aio.EOF:
                    return
                arrived = clock()
                assert isinstance(data, bytes)
                kind = kinds.get(data[0], "unknown")
                if kind == "request":
                    figures = self.figures
                    table = stream.table
                    if table is not None and table.answered_at_ns is not None:
                        figures.latencies_ns.append(arrived - table.answered_at_ns)
                    request = bot_pb2.RefereeMessage.FromString(data).request
                    answer = bot_pb2.BotMessage(
                        action=bot_pb2.Action(
                            request_id=request.request_id, choice=request.legal[0]
                        )
                    ).SerializeToString()
                    self._count(stream, kind, len(data))
                    figures.decisions += 1
                    if table is not None:
                        table.answered_at_ns = clock()
                    await call.write(answer)
                    continue
                if kind == "match_started":
                    started = bot_pb2.RefereeMessage.FromString(data).match_started
                    stream.seat = started.seat
                    stream.match_id = started.match_id
                    stream.table = self.tables.setdefault(started.match_id, _TableClock())
                elif kind == "welcome":
                    stream.welcomed.set()
                    continue
                self._count(stream, kind, len(data))
                if kind == "match_ended":
                    if stream.table is not None:
                        stream.table.answered_at_ns = None  # the next match starts afresh
                    stream.matches_ended += 1
                    async with self._progress:
                        self._progress.notify_all()
        except grpc.aio.AioRpcError as error:
            if not stream.welcomed.is_set():
                self.failed = f"stream {stream.index}: {error.code().name}: {error.details()}"
            raise

    def _count(self, stream: _Stream, kind: str, size: int) -> None:
        figures = self.figures
        seat = -1 if stream.seat is None else stream.seat
        figures.messages_by_seat[seat] = figures.messages_by_seat.get(seat, 0) + 1
        figures.bytes_by_seat[seat] = figures.bytes_by_seat.get(seat, 0) + size
        figures.kinds[kind] = figures.kinds.get(kind, 0) + 1

    def reset(self) -> None:
        """Start measuring afresh."""
        self.figures = _Figures()
        self.tables.clear()
        for stream in self.streams:
            stream.matches_ended = 0
            stream.table = None

    async def report(self, matches: int, timeout: float = _REPORT_TIMEOUT_S) -> dict[str, Any]:
        """The figures since the reset, once every stream has seen ``matches`` matches end.

        Keys: ``decisions`` (answers sent), ``latency_samples``, ``latency_p50_ms``,
        ``latency_p99_ms``, ``latency_mean_ms``, ``messages_by_seat`` and ``bytes_by_seat``
        (received, summed over the streams at each seat), ``kinds`` (messages by kind), ``cpu_s``
        and ``wall_s`` (this process, since the reset), ``streams``.
        """
        async with asyncio.timeout(timeout), self._progress:
            await self._progress.wait_for(
                lambda: all(s.matches_ended >= matches for s in self.streams)
            )
        figures = self.figures
        ordered = sorted(figures.latencies_ns)
        count = len(ordered)
        seats = sorted(s for s in figures.messages_by_seat if s >= 0)
        return {
            "decisions": figures.decisions,
            "latency_samples": count,
            "latency_p50_ms": (percentile(ordered, 50) if ordered else 0) / 1e6,
            "latency_p99_ms": (percentile(ordered, 99) if ordered else 0) / 1e6,
            "latency_mean_ms": (sum(ordered) / count / 1e6) if count else 0.0,
            "messages_by_seat": [figures.messages_by_seat[s] for s in seats],
            "bytes_by_seat": [figures.bytes_by_seat[s] for s in seats],
            "kinds": dict(sorted(figures.kinds.items())),
            "cpu_s": time.process_time() - figures.cpu_started,
            "wall_s": time.perf_counter() - figures.wall_started,
            "streams": len(self.streams),
        }

    async def close(self) -> None:
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        for channel in self.channels:
            await channel.close()


def emit(payload: dict[str, Any]) -> None:
    """One control line out (the load generator's and the floor's process speak alike)."""
    sys.stdout.write(json.dumps(payload) + "\n")
    sys.stdout.flush()


async def _serve(args: argparse.Namespace) -> int:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=CONTROL_LINE_LIMIT)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    first = await reader.readline()
    if not first:
        return 1
    tokens = json.loads(first)["tokens"]
    generator = LoadGenerator(
        args.address,
        tokens,
        snapshot_only=args.snapshot_only,
        streams_per_channel=args.streams_per_channel,
    )
    admin: AdminDriver | None = None
    try:
        try:
            await generator.start()
        except Exception as error:
            emit({"error": str(error)})
            return 1
        emit({"ready": len(tokens)})
        while True:
            line = await reader.readline()
            if not line:
                return 0
            command = json.loads(line)
            name = command.get("cmd")
            if name == "reset":
                generator.reset()
                emit({"ok": True})
            elif name == "report":
                try:
                    emit(await generator.report(int(command.get("matches", 0))))
                except TimeoutError:
                    ended = [s.matches_ended for s in generator.streams]
                    emit({"error": f"matches never ended on every stream: {ended}"})
            elif name == "admin":
                if admin is not None:
                    await admin.close()
                admin = AdminDriver(command["address"], command["token"])
                emit({"ok": True})
            elif name == "run":
                if admin is None:
                    emit({"error": "run before admin"})
                    continue
                request = json_format.ParseDict(
                    command.get("request", {}), admin_pb2.RunMatchRequest()
                )
                try:
                    await admin.run(request, command["seatings"], int(command["matches"]))
                except (RuntimeError, grpc.aio.AioRpcError) as error:
                    emit({"error": str(error)})
                    continue
                emit({"ok": True})
            elif name == "quit":
                return 0
            else:
                emit({"error": f"unknown command {name!r}"})
    finally:
        if admin is not None:
            await admin.close()
        await generator.close()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m brandeln.bench.referee.loadgen",
        description="Instant bots for the referee benchmark, driven over stdin/stdout.",
    )
    parser.add_argument("address", help="host:port of the referee (or the floor)")
    parser.add_argument(
        "--snapshot-only", action="store_true", help="say snapshot_only in every Hello"
    )
    parser.add_argument(
        "--streams-per-channel", type=int, default=4, help="streams that share one connection"
    )
    return asyncio.run(_serve(parser.parse_args(argv)))


if __name__ == "__main__":
    raise SystemExit(main())
