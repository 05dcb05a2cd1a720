"""The referee benchmark: the referee against its floor, side by side in one run.

``brandeln bench referee --tables 1,16,64`` (see ``brandeln/bench/cli.py``) calls
:func:`run_referee_bench`.

**Workload.** Four *instant* bots per table over real gRPC on loopback: one load-generator
process (:mod:`brandeln.bench.referee.loadgen`) holds every bot stream and answers each request at
once with its first legal choice. The server under test runs in this process, so
``time.process_time()`` here is the server's CPU without the bots' (gRPC's own threads included).
The load generator also drives the referee's ``Admin.RunMatch`` calls, so the Admin client's CPU is
not counted either; the referee's side of those calls (a ``MatchUpdate`` per public event) is.

**Script.** At the start, one match (``deals`` deals, seed ``seed``) is played by the real
referee and every (seat, message) it sends is recorded, with the points where it waits for an
answer (after each ``DecisionRequest``): the script the floor replays
(:mod:`brandeln.bench.referee.floor`). Every measured referee match uses the same seed, so each one
sends exactly the script's messages. The floor holds them as message objects and lets gRPC serialize
each send, as a plain server would; the referee serializes each public event once for all the seats
it goes to and builds requests from cached encodings
(``brandeln.arena.codec.decision_request_bytes``). That is part of what is measured: the floor
stands for the transport with no rules, logs or checks, not for the cheapest conceivable byte pump.

**Runs.** For each table count, the referee (registered bots, ``Admin.RunMatch`` for each
match, every table at once, its matches one after another) and the floor (sessions grouped
into tables in arrival order, the same number of matches; a process of its own with Python's
defaults, as anyone's bare server would be, its CPU read from that process; it has no Admin
service) each get their own load generator, with one connection per table. After a warm-up
match of one deal per table on the referee, repeats alternate referee, floor, referee,
floor..., so drift on a noisy machine hits both alike.

**Figures** (per table count and server, median and spread over the repeats):

- ``decisions_per_s``: decisions answered, over all tables, per second of wall time from the
  first match started to the last one ended;
- ``p50_ms`` / ``p99_ms``: latency per decision, measured in the load generator: for a table,
  from the moment one of its seats starts writing its answer to the moment the table's next
  ``DecisionRequest`` arrives at any of its seats (the server's turnaround, loopback transport
  both ways included; deal ends and starts fall inside it, match ends do not). Percentiles of
  all samples of a repeat, nearest rank;
- ``cpu_ms_per_decision``: the server process's CPU time over the repeat, per decision;
- ``server_busy`` / ``loadgen_busy``: CPU seconds per wall second of each process (1.0 = one
  core), to see which side saturates;
- ``loop_us_per_decision`` (with ``loop_profile``): the server's CPU per decision by what its
  event loop ran (each task by its coroutine, each callback by its function), the loop's own
  and the other threads' (:mod:`brandeln.bench.referee.loop_profile`), the same for both servers.

Ratios are referee/floor, per repeat (they alternate), then median and spread. Targets on a
2-core machine: p50 at 1 table <= 1.25; decisions/s at 1, 16 and 64 tables >= 0.9.

>>> settings = RefereeBenchSettings(tables=(1,), repeats=1, deals=1, matches_per_table=1)
>>> figures = asyncio.run(run_referee_bench(settings))  # doctest: +SKIP
>>> figures["targets"][0]["ratio"]  # doctest: +SKIP
1.21
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Protocol

import grpc

from brandeln.arena.embedded import EmbeddedReferee
from brandeln.arena.session import SeatSession
from brandeln.bench.referee.floor import MatchScript
from brandeln.bench.referee.loadgen import CONTROL_LINE_LIMIT
from brandeln.bench.referee.loop_profile import LoopProfile
from brandeln.bench.report import machine
from brandeln.services import data_folder
from brandeln.v1 import admin_pb2, admin_pb2_grpc, bot_pb2

__all__ = [
    "TARGETS",
    "LoadGenProcess",
    "RefereeBenchSettings",
    "Target",
    "run_referee_bench",
]

PLAYERS = 4  # the standard ruleset seats four
_ROOT = Path(__file__).resolve().parents[3]  # the checkout, three above brandeln/bench/referee/
_LOADGEN_TIMEOUT_S = 120.0

Progress = Callable[[str], None]


@dataclass(frozen=True)
class RefereeBenchSettings:
    """What to run. ``matches_per_table`` None: enough for about ``decisions_per_repeat``."""

    tables: tuple[int, ...] = (1, 16, 64)
    repeats: int = 3
    deals: int = 8
    seed: int = 7
    ruleset: str = "standard"
    decisions_per_repeat: int = 6000
    matches_per_table: int | None = None
    snapshot_only: bool = False
    warmup: bool = True
    loop_profile: bool = (
        False  # time each server's loop callbacks too (brandeln.bench.referee.loop_profile)
    )

    @classmethod
    def quick(cls, **changes: Any) -> RefereeBenchSettings:
        """A short run: fewer decisions and repeats, for a first look."""
        return cls(**{"repeats": 2, "decisions_per_repeat": 1500, **changes})

    def matches_for(self, tables: int, decisions_per_match: int) -> int:
        if self.matches_per_table is not None:
            return self.matches_per_table
        per_table = self.decisions_per_repeat / (tables * max(1, decisions_per_match))
        return max(1, round(per_table))


@dataclass(frozen=True)
class Target:
    """A ratio referee/floor that should hold at one table count."""

    name: str
    metric: str  # "p50_ms" or "decisions_per_s"
    tables: int
    limit: float
    at_most: bool  # True: ratio <= limit; False: ratio >= limit


TARGETS = (
    Target("p50 latency at 1 table, referee/floor", "p50_ms", 1, 1.25, at_most=True),
    *(
        Target(
            f"decisions/s at {tables} table{'s' if tables > 1 else ''}, referee/floor",
            "decisions_per_s",
            tables,
            0.9,
            at_most=False,
        )
        for tables in (1, 16, 64)
    ),
)
_METRICS = (
    "decisions_per_s",
    "p50_ms",
    "p99_ms",
    "cpu_ms_per_decision",
    "server_busy",
    "loadgen_busy",
)


class _ControlledProcess:
    """A benchmark helper process driven over its stdin and stdout, a JSON object a line."""

    def __init__(self, process: asyncio.subprocess.Process, name: str) -> None:
        self.process = process
        self.name = name

    @staticmethod
    async def _spawn(*args: str) -> asyncio.subprocess.Process:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(_ROOT), env.get("PYTHONPATH")) if p)
        return await asyncio.create_subprocess_exec(
            sys.executable,
            *args,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            env=env,
            limit=CONTROL_LINE_LIMIT,
        )

    async def _read(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        async with asyncio.timeout(_LOADGEN_TIMEOUT_S):
            line = await self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"the {self.name} exited ({self.process.returncode})")
        reply: dict[str, Any] = json.loads(line)
        return reply

    async def _exchange(self, payload: dict[str, Any]) -> dict[str, Any]:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(payload).encode() + b"\n")
        await self.process.stdin.drain()
        return await self._read()

    async def _started(self, first: dict[str, Any] | None, key: str) -> dict[str, Any]:
        """The process's first reply (to ``first``, if given), which must hold ``key``;
        the process is closed if it does not come or does not say so."""
        try:
            reply = await (self._read() if first is None else self._exchange(first))
        except BaseException:
            await self.close()
            raise
        if key not in reply:
            await self.close()
            raise RuntimeError(f"the {self.name} did not start: {reply}")
        return reply

    async def command(self, payload: dict[str, Any]) -> dict[str, Any]:
        reply = await self._exchange(payload)
        if "error" in reply:
            raise RuntimeError(f"{self.name}: {reply['error']}")
        return reply

    async def close(self) -> None:
        process = self.process
        if process.returncode is None and process.stdin is not None:
            try:
                process.stdin.write(b'{"cmd": "quit"}\n')
                await process.stdin.drain()
                process.stdin.close()
            except (BrokenPipeError, ConnectionResetError):
                pass
        try:
            async with asyncio.timeout(10):
                await process.wait()
        except TimeoutError:
            process.kill()
            await process.wait()


class LoadGenProcess(_ControlledProcess):
    """A running ``python -m brandeln.bench.referee.loadgen``."""

    @classmethod
    async def start(
        cls, address: str, tokens: Sequence[str], *, snapshot_only: bool
    ) -> LoadGenProcess:
        """Start it and return once every stream has its Welcome."""
        args = ["-m", "brandeln.bench.referee.loadgen", address]
        if snapshot_only:
            args.append("--snapshot-only")
        loadgen = cls(await cls._spawn(*args), "load generator")
        await loadgen._started({"tokens": list(tokens)}, "ready")
        return loadgen

    async def drive_admin(self, address: str, token: str) -> None:
        """Let the load generator drive the referee's Admin service (``run_matches``)."""
        await self.command({"cmd": "admin", "address": address, "token": token})

    async def run_matches(
        self, seatings: Sequence[Sequence[str]], matches: int, request: dict[str, Any]
    ) -> None:
        """``matches`` matches per seating through Admin.RunMatch, all seatings at once."""
        await self.command(
            {
                "cmd": "run",
                "seatings": [list(s) for s in seatings],
                "matches": matches,
                "request": request,
            }
        )


class FloorProcess(_ControlledProcess):
    """A running ``python -m brandeln.bench.referee.floor``: the floor in a process of its own."""

    port = 0

    @classmethod
    async def start(cls, players: int) -> FloorProcess:
        """Start it and return once it serves (its port in :attr:`target`)."""
        floor = cls(
            await cls._spawn("-m", "brandeln.bench.referee.floor", "--players", str(players)),
            "floor",
        )
        floor.port = int((await floor._started(None, "port"))["port"])
        return floor

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    async def wait_for_tables(self, tables: int) -> None:
        await self.command({"cmd": "tables", "tables": tables})

    async def load(self, script: MatchScript) -> None:
        await self.command({"cmd": "script", "script": script.to_json()})

    async def cpu_s(self) -> float:
        """The floor process's CPU time so far, every thread."""
        return float((await self.command({"cmd": "cpu"}))["cpu_s"])

    async def play(self, matches: int) -> int:
        """The script ``matches`` times on every table; the answers awaited."""
        return int((await self.command({"cmd": "play", "matches": matches}))["answers"])

    async def start_loop_profile(self) -> None:
        """Start timing the floor's loop callbacks (:class:`LoopProfile`)."""
        await self.command({"cmd": "loop_start"})

    async def stop_loop_profile(self) -> dict[str, list[float]]:
        """Stop timing them: ``{name: [cpu_s, runs]}``."""
        rows: dict[str, list[float]] = (await self.command({"cmd": "loop_stop"}))["loop"]
        return rows


class _Admin:
    """The Admin calls the benchmark makes from this process (none while measuring)."""

    def __init__(self, address: str, token: str) -> None:
        self.channel = grpc.aio.insecure_channel(address)
        self.stub = admin_pb2_grpc.AdminStub(self.channel)
        self.metadata = (("authorization", f"Bearer {token}"),)

    async def register(self, names: Sequence[str]) -> tuple[list[str], list[str]]:
        """Register bots: (bot ids, tokens)."""
        ids, tokens = [], []
        for name in names:
            reply = await self.stub.RegisterBot(
                admin_pb2.RegisterBotRequest(name=name), metadata=self.metadata
            )
            ids.append(reply.bot_id)
            tokens.append(reply.token)
        return ids, tokens

    async def wait_for_sessions(self, bot_ids: Sequence[str], timeout: float = 30.0) -> None:
        wanted = set(bot_ids)
        async with asyncio.timeout(timeout):
            while True:
                reply = await self.stub.ListSessions(
                    admin_pb2.ListSessionsRequest(), metadata=self.metadata
                )
                free = {s.bot_id for s in reply.sessions if s.state == "lobby"}
                if wanted <= free:
                    return
                await asyncio.sleep(0.02)

    async def close(self) -> None:
        await self.channel.close()


class _Recorder:
    """Records what the referee sends to some sessions, (seat, message) in order."""

    def __init__(self) -> None:
        self.sent: list[tuple[int, bot_pb2.RefereeMessage]] = []

    def attach(self, session: SeatSession) -> None:
        # The benchmark's one intrusion into the referee: this session's send notes each message
        # and its seat (for the recorded match's sessions only). The install compiles
        # SeatSession (setup.py), whose instances take no attribute of their own, so the
        # session becomes an instance of a subclass that does it, with the same layout (no
        # slots of its own); the compiled table sends through the class's send like any caller.
        sent = self.sent

        def recording_send(self: SeatSession, message: bot_pb2.RefereeMessage | bytes) -> None:
            if self.seat is not None:
                # The floor sends message objects, serialized per send like any plain server.
                parsed = (
                    bot_pb2.RefereeMessage.FromString(message)
                    if isinstance(message, bytes)
                    else message
                )
                sent.append((self.seat.index, parsed))
            SeatSession.send(self, message)

        recording = type(
            "RecordingSession", (type(session),), {"__slots__": (), "send": recording_send}
        )
        session.__class__ = recording


def _match_request(settings: RefereeBenchSettings, deals: int | None = None) -> dict[str, Any]:
    """The RunMatchRequest fields of every benchmark match but the bot ids, as JSON."""
    return {
        "ruleset": settings.ruleset,
        "deals": settings.deals if deals is None else deals,
        "seed": settings.seed,
        # Like a season: the operator's stream carries results, not every card (the floor has
        # no operator stream at all).
        "summary_updates": True,
    }


async def record_script(
    referee: EmbeddedReferee, admin: _Admin, settings: RefereeBenchSettings
) -> MatchScript:
    """Play one match on the real referee and record what it sent: the floor's script."""
    assert referee.referee is not None
    ids, tokens = await admin.register([f"record-{seat}" for seat in range(PLAYERS)])
    loadgen = await LoadGenProcess.start(
        referee.address, tokens, snapshot_only=settings.snapshot_only
    )
    try:
        await admin.wait_for_sessions(ids)
        await loadgen.drive_admin(referee.address, referee.admin_token)
        recorder = _Recorder()
        for session in referee.referee.lobby.sessions():
            if session.bot_id in ids:
                recorder.attach(session)
        await loadgen.run_matches([ids], 1, _match_request(settings))
    finally:
        await loadgen.close()
    return MatchScript.from_sent(PLAYERS, recorder.sent)


async def _process_cpu_s() -> float:
    return time.process_time()


class _LoopProfiler(Protocol):
    """Starts and stops a server's :class:`LoopProfile`; stopping gives its rows,
    ``{name: [cpu_s, runs]}``."""

    async def start_loop_profile(self) -> None: ...

    async def stop_loop_profile(self) -> dict[str, list[float]]: ...


class _InProcessLoopProfiler:
    """The referee's: it runs in this process."""

    def __init__(self) -> None:
        self._profile: LoopProfile | None = None

    async def start_loop_profile(self) -> None:
        self._profile = LoopProfile()
        self._profile.start()

    async def stop_loop_profile(self) -> dict[str, list[float]]:
        profile, self._profile = self._profile, None
        assert profile is not None
        profile.stop()
        return profile.as_json()


async def _measure(
    loadgen: LoadGenProcess,
    play: Callable[[], Awaitable[object]],
    matches: int,
    server_cpu_s: Callable[[], Awaitable[float]] = _process_cpu_s,
    loop: _LoopProfiler | None = None,
) -> dict[str, Any]:
    """One repeat: reset the load generator, play, and gather the figures; the server's CPU
    is read before and after by ``server_cpu_s`` (this process's: the referee's), and its
    loop's callbacks timed by ``loop`` if given."""
    await loadgen.command({"cmd": "reset"})
    rows = None
    if loop is not None:
        await loop.start_loop_profile()
    try:
        cpu_started = await server_cpu_s()
        wall_started = time.perf_counter()
        await play()
        wall = time.perf_counter() - wall_started
        cpu = await server_cpu_s() - cpu_started
    finally:
        # Also when the play fails: the profile patches asyncio for the whole process.
        if loop is not None:
            rows = await loop.stop_loop_profile()
    report = await loadgen.command({"cmd": "report", "matches": matches})
    decisions = max(1, int(report["decisions"]))
    loop_us = {}
    if rows is not None:
        loop_us = {name: cpu_s * 1e6 / decisions for name, (cpu_s, _runs) in rows.items()}
    return {
        "loop_us_per_decision": loop_us,
        "decisions": report["decisions"],
        "wall_s": wall,
        "decisions_per_s": report["decisions"] / wall,
        "p50_ms": report["latency_p50_ms"],
        "p99_ms": report["latency_p99_ms"],
        "mean_ms": report["latency_mean_ms"],
        "latency_samples": report["latency_samples"],
        "cpu_s": cpu,
        "cpu_ms_per_decision": cpu * 1000 / decisions,
        "server_busy": cpu / wall,
        "loadgen_busy": report["cpu_s"] / wall,
        "loadgen_cpu_ms_per_decision": report["cpu_s"] * 1000 / decisions,
        "messages_by_seat": report["messages_by_seat"],
        "bytes_by_seat": report["bytes_by_seat"],
        "kinds": report["kinds"],
    }


def _log_bytes_per_deal(logs: Path) -> float:
    """Bytes of match log per deal played, over every log the benchmark's referee wrote."""
    size = deals = 0
    for path in logs.glob("*.jsonl"):
        size += path.stat().st_size
        last = path.read_text(encoding="utf-8").rstrip("\n").rsplit("\n", 1)[-1]
        footer = json.loads(last)
        if footer.get("type") == "footer":
            deals += int(footer["deals_played"])
    return size / deals if deals else 0.0


def _spread(values: Sequence[float]) -> dict[str, float]:
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def _summary(repeats: Sequence[dict[str, Any]]) -> dict[str, dict[str, float]]:
    return {metric: _spread([r[metric] for r in repeats]) for metric in _METRICS}


def _loop_summary(repeats: Sequence[dict[str, Any]]) -> dict[str, float]:
    """Each loop profile row's median over the repeats, in µs a decision (a row missing from
    a repeat counts as 0 there); empty when the loops were not profiled."""
    names = dict.fromkeys(name for r in repeats for name in r["loop_us_per_decision"])
    return {
        name: statistics.median(r["loop_us_per_decision"].get(name, 0.0) for r in repeats)
        for name in names
    }


async def _bench_tables(
    tables: int,
    referee: EmbeddedReferee,
    admin: _Admin,
    script: MatchScript,
    settings: RefereeBenchSettings,
    say: Progress,
) -> dict[str, Any]:
    matches = settings.matches_for(tables, script.decisions)
    names = [f"t{tables}-{n:04d}" for n in range(PLAYERS * tables)]
    ids, tokens = await admin.register(names)
    seatings = [ids[t * PLAYERS : (t + 1) * PLAYERS] for t in range(tables)]
    say(f"{tables} table(s): connecting {PLAYERS * tables} bot streams to each server")
    referee_loadgen = await LoadGenProcess.start(
        referee.address, tokens, snapshot_only=settings.snapshot_only
    )
    floor = await FloorProcess.start(PLAYERS)
    floor_loadgen: LoadGenProcess | None = None
    try:
        await floor.load(script)
        await admin.wait_for_sessions(ids)
        await referee_loadgen.drive_admin(referee.address, referee.admin_token)
        floor_loadgen = await LoadGenProcess.start(
            # The floor checks no token; the same ones keep every Hello the same.
            floor.target,
            tokens,
            snapshot_only=settings.snapshot_only,
        )
        await floor.wait_for_tables(tables)

        async def referee_matches(count: int, deals: int | None = None) -> None:
            await referee_loadgen.run_matches(seatings, count, _match_request(settings, deals))

        if settings.warmup:
            await referee_matches(1, deals=1)
            # The operator's result can overtake the seats' MatchEnded (different streams):
            # let every seat see the warm-up end before the first repeat starts counting.
            await referee_loadgen.command({"cmd": "report", "matches": 1})
        referee_runs: list[dict[str, Any]] = []
        floor_runs: list[dict[str, Any]] = []
        profiled = settings.loop_profile
        for repeat in range(settings.repeats):
            referee_runs.append(
                await _measure(
                    referee_loadgen,
                    lambda: referee_matches(matches),
                    matches,
                    loop=_InProcessLoopProfiler() if profiled else None,
                )
            )
            floor_runs.append(
                await _measure(
                    floor_loadgen,
                    lambda: floor.play(matches),
                    matches,
                    floor.cpu_s,
                    loop=floor if profiled else None,
                )
            )
            say(
                f"{tables} table(s), repeat {repeat + 1}/{settings.repeats}: referee "
                f"{referee_runs[-1]['decisions_per_s']:.0f} decisions/s, p50 "
                f"{referee_runs[-1]['p50_ms']:.3f} ms; floor "
                f"{floor_runs[-1]['decisions_per_s']:.0f} decisions/s, p50 "
                f"{floor_runs[-1]['p50_ms']:.3f} ms"
            )
    finally:
        await referee_loadgen.close()
        if floor_loadgen is not None:
            await floor_loadgen.close()
        await floor.close()
    pairs = list(zip(referee_runs, floor_runs, strict=True))
    ratios = {
        metric: _spread([r[metric] / f[metric] if f[metric] else 0.0 for r, f in pairs])
        for metric in ("decisions_per_s", "p50_ms", "p99_ms", "cpu_ms_per_decision")
    }
    per_match = tables * matches
    return {
        "tables": tables,
        "matches_per_table": matches,
        "decisions_per_repeat": referee_runs[0]["decisions"],
        "referee": {
            "summary": _summary(referee_runs),
            "loop_us_per_decision": _loop_summary(referee_runs),
            "repeats": referee_runs,
        },
        "floor": {
            "summary": _summary(floor_runs),
            "loop_us_per_decision": _loop_summary(floor_runs),
            "repeats": floor_runs,
        },
        "ratios": ratios,
        "messages_per_seat_per_match": {
            "referee": [m / per_match for m in referee_runs[0]["messages_by_seat"]],
            "floor": [m / per_match for m in floor_runs[0]["messages_by_seat"]],
            "script": script.messages_per_seat(),
        },
        "bytes_per_seat_per_match": {
            "referee": [b / per_match for b in referee_runs[0]["bytes_by_seat"]],
            "floor": [b / per_match for b in floor_runs[0]["bytes_by_seat"]],
        },
    }


def _targets(configs: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    results = []
    for target in TARGETS:
        config = next((c for c in configs if c["tables"] == target.tables), None)
        ratio = None if config is None else config["ratios"][target.metric]["median"]
        met = None
        if ratio is not None:
            met = ratio <= target.limit if target.at_most else ratio >= target.limit
        results.append({**asdict(target), "ratio": ratio, "met": met})
    return results


async def run_referee_bench(
    settings: RefereeBenchSettings, progress: Progress | None = None
) -> dict[str, Any]:
    """Run the benchmark; every figure in a JSON-ready dict (see the module docstring)."""
    say = progress or (lambda _text: None)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="brandeln-bench-") as data_dir:
        async with EmbeddedReferee(Path(data_dir)) as referee:
            admin = _Admin(referee.address, referee.admin_token)
            try:
                say("recording the floor's script from one referee match")
                script = await record_script(referee, admin, settings)
                say(
                    f"script: {settings.deals} deals, {script.decisions} decisions, "
                    f"{len(script.steps)} messages"
                )
                configs = [
                    await _bench_tables(tables, referee, admin, script, settings, say)
                    for tables in settings.tables
                ]
            finally:
                await admin.close()
        log_bytes_per_deal = _log_bytes_per_deal(data_folder.logs_dir(Path(data_dir)))
    return {
        "benchmark": "referee",
        "settings": asdict(settings),
        "machine": {**machine(), "grpc": grpc.__version__},
        "script": {
            "deals": settings.deals,
            "seed": settings.seed,
            "decisions_per_match": script.decisions,
            "messages": len(script.steps),
            "messages_per_seat": script.messages_per_seat(),
            "bytes_per_seat": script.bytes_per_seat(),
        },
        "configs": configs,
        # Every benchmark deal is played to its last trick: the longest logs a deal can have.
        "log_bytes_per_deal": log_bytes_per_deal,
        "targets": _targets(configs),
        "elapsed_s": time.perf_counter() - started,
    }
