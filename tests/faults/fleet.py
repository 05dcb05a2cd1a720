"""The fault suite's harness: a referee process, the hostile fleet, and the checks that every
match and every message must pass.

``tests/faults/test_hostile_fleet.py`` plays one round (one match per behaviour, all at once,
next to a control table of well-behaved bots); ``scripts/fault_suite.py`` plays rounds until it
has a thousand matches and more, killing and restarting the referee on the way.

What is checked, for every match:

- :func:`check_match`: a recorded result: the index row agrees with the result RunMatch
  streamed, the log has its footer (with the same balances, ranks, forfeits and strikes) and
  replaying it through the engine reproduces the balances;
- :func:`handling_problems`: the behaviour's handling, spelled out in :data:`EXPECTED`
  (strikes, forfeit and penalty codes of the hostile seat; every other seat clean);
  with what the referee's own records explain by load on top (:func:`seat_evidence`): a
  timeout whose answer it read late after waiting the full move time, a forfeit for not coming
  back when it saw the seat away longer than ``reconnect_ms`` (a loaded referee accepts new
  calls late, and a resume is a new call), and the handling such a forfeit cut short;
- :func:`leaks`: no seat received a card outside its own hand before the deal ended, on every
  message every process received (hands only in ``DealEnded``; ``DealStarted`` and request
  hands and legal cards within the seat's hand as dealt; trick cards among the cards played);
- :func:`status_problems`: every fault a bot injected that the protocol answers with a status
  (``INVALID_ARGUMENT``, ``UNAUTHENTICATED``, ...) got exactly that status, unless gRPC itself
  cancelled the call after holding it :data:`UNACCEPTED_CALL_S` for a referee too busy to take it.

What load explains is not a problem but is counted (the ``excused`` lists), so a run shows how
much of it there was; everything else the judges say is a problem whatever the machine's speed.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Final

import grpc
from grpc_health.v1 import health_pb2

from brandeln.arena.limits import HELLO_TIMEOUT_S, MAX_SESSIONS_PER_BOT
from brandeln.arena.logreader import MatchLog, read_log
from brandeln.arena.logrecords import DecisionRecord
from brandeln.arena.replay import replay_log
from brandeln.arena.spec import deal_seed
from brandeln.arena.timecontrol import TimeControlSettings
from brandeln.engine.dealing import deal_cards
from brandeln.engine.rulesets import find_ruleset
from brandeln.protocol.events import CardPlayedRecord, DealEndedRecord, Penalty
from brandeln.protocol.statuses import MatchStatus, SeatOutcome
from brandeln.v1 import admin_pb2, admin_pb2_grpc, cards_pb2

ROOT: Final = Path(__file__).resolve().parents[2]
HOSTILE_BOT: Final = Path(__file__).with_name("hostile_bot.py")
CLI: Final = (sys.executable, "-m", "brandeln.cli")

# Every behaviour of the fleet that sits at a table of its own (honest bots fill the others).
FLEET: Final = (
    "silent",
    "late",
    "illegal",
    "stale",
    "second-hello",
    "action-first",
    "oversize",
    "flood",
    "garbage",
    "drop-resume",
    "drop-loop",
    "drop-forever",
    "foreign-resume",
    "shared-token",
    "bad-token",
    "revoked",
    "many-streams",
    "idle",
    "slow-reader",
)
CONTROL: Final = "control"
HONEST: Final = ("honest-0", "honest-1", "honest-2", "honest-3")

# The referee's session times and timers are read in whole milliseconds, on two clocks (wall
# and monotonic): a seat away exactly reconnect_ms by one may be a millisecond short by the other.
CLOCK_SLACK_MS: Final = 5
# gRPC's server cancels (CANCELLED) a call it has held this long without the application
# taking it (grpc.server_max_unrequested_time_in_server, 30 s by default): the referee was too
# busy to accept new calls, which is load, not a handling of the referee's.
UNACCEPTED_CALL_S: Final = 30.0
# How a stream the bot cancelled itself ends (hostile_bot.Stream).
CANCELLED_BY_THE_BOT: Final = "cancelled by the bot"
# Streams that never say hello end after servicers.HELLO_TIMEOUT_S, or gRPC cancels them after
# UNACCEPTED_CALL_S when the referee is too busy to take them: wait for that, and some more.
SETTLE_S: Final = HELLO_TIMEOUT_S + UNACCEPTED_CALL_S + 30.0

# One time control for every table: generous for a bot that answers at once even on a loaded
# two-core machine, short enough that a bot that does not answer costs a few seconds.
MOVE_MS: Final = 1000
BANK_MS: Final = 1000
MAX_STRIKES: Final = 3
RECONNECT_MS: Final = 3000
SEAT_WAIT_MS: Final = 30_000
# A table that streams no update for this long is stuck, not slow: no decision may take longer
# than move + bank, no dropped seat longer than reconnect_ms, and the honest bots answer at
# once (RunMatch streams every event, so a slow machine slows a match but never stalls it).
STALL_S: Final = 3 * (MOVE_MS + BANK_MS + RECONNECT_MS) / 1000
DEALS: Final = 2
# The control table outlasts the attacks on it; the slow reader's table sends its seat more
# messages than the referee buffers for a bot that does not read (about 10 deals' worth); the
# flood's table outlasts the flood, so it meets the seat's inbox limit, not the lobby's.
DEALS_FOR: Final = {CONTROL: 6, "slow-reader": 60, "flood": 40}
# The many-streams bot holds one seat session besides its burst.
SESSION_CAP: Final = MAX_SESSIONS_PER_BOT

_LISTENING = re.compile(r"listening on ([\d.]+):(\d+)")


@dataclass(frozen=True)
class Expected:
    """How the referee must handle one behaviour's seat in one match."""

    strikes: int = 0
    forfeited: bool = False
    # The penalty codes of the hostile seat in order (the log's penalty records).
    codes: tuple[str, ...] = ()


_TIMEOUTS = Expected(3, True, ("timeout", "timeout", "timeout", "forfeited"))
_DISCONNECTED = Expected(0, True, ("disconnected",))
CLEAN: Final = Expected()

# The explicit handling of every behaviour (docs/operators/referee.md lists the limits).
EXPECTED: Final[dict[str, Expected]] = {
    # Never answers: three timeouts, each played by the fallback, then the forfeit.
    "silent": _TIMEOUTS,
    # Answers just after the deadline: a timeout each time (ruling 16); the late answer is
    # rejected as stale when read, without a second strike (ruling 15).
    "late": _TIMEOUTS,
    # Only illegal answers: each is rejected with a strike; the third forfeits the seat.
    "illegal": Expected(3, True, ("illegal", "illegal", "illegal", "forfeited")),
    # Stale and foreign request ids are rejected without a strike; the request then times out.
    "stale": _TIMEOUTS,
    # A second hello ends the stream (INVALID_ARGUMENT); the seat is not resumed and forfeits
    # reconnect_ms later, without a strike.
    "second-hello": _DISCONNECTED,
    # Refused at the handshake (INVALID_ARGUMENT), then a clean match.
    "action-first": CLEAN,
    # 20 KiB: INVALID_ARGUMENT; 2 MiB: gRPC's own RESOURCE_EXHAUSTED; resumed both times, so
    # no strike: the clock stops while a seat is away (ruling 17).
    "oversize": CLEAN,
    # More than 8 messages for one request: a strike for each of the next three; the rest
    # overflows the seat's inbox and ends the stream (INVALID_ARGUMENT).
    "flood": Expected(3, True, ("protocol_error", "protocol_error", "protocol_error", "forfeited")),
    # Two answers with enum values outside their enums: two malformed strikes; undecodable
    # bytes end the stream (INVALID_ARGUMENT) and the bot resumes; unknown fields are ignored.
    "garbage": Expected(2, False, ("malformed", "malformed")),
    # Three drops mid-deal, each resumed in time: nothing lost.
    "drop-resume": CLEAN,
    # Drops and resumes at every request: after 10 resumes the next one is not seated again,
    # so the seat forfeits reconnect_ms after its last drop.
    "drop-loop": _DISCONNECTED,
    # Closes for good mid-deal: forfeits reconnect_ms later.
    "drop-forever": _DISCONNECTED,
    # Resuming a match it has no seat in is PERMISSION_DENIED; its own match is clean.
    "foreign-resume": CLEAN,
    # Two processes with one token are one bot: both seats are its own; a resume of a seat
    # whose stream is connected puts the new stream in the lobby.
    "shared-token": CLEAN,
    # Made-up tokens are UNAUTHENTICATED, then a clean match with the real one.
    "bad-token": CLEAN,
    # A revoked token is UNAUTHENTICATED, then a clean match with another identity.
    "revoked": CLEAN,
    # 300 streams at once: the referee keeps 256 sessions per bot (RESOURCE_EXHAUSTED beyond);
    # the match is clean.
    "many-streams": CLEAN,
    # Streams that never say hello end after 10 s (DEADLINE_EXCEEDED); the match is clean.
    "idle": CLEAN,
    # Never reads: its requests time out (three strikes, forfeit), and once the referee holds
    # 512 unsent messages for it the stream is ended (RESOURCE_EXHAUSTED).
    "slow-reader": _TIMEOUTS,
    CONTROL: CLEAN,
}


# --- the referee process ----------------------------------------------------------------------
class RefereeProcess:
    """``brandeln serve`` as a subprocess on a loopback port, with its data in ``data_dir``."""

    def __init__(self, data_dir: Path, admin_token: str, database: str | None = None) -> None:
        """``database``: a database URL for ``--db`` (PostgreSQL) in place of the data folder's
        referee.db and logs."""
        self.data_dir = data_dir
        self.admin_token = admin_token
        self.database = database
        self.port = 0
        self.process: subprocess.Popen[bytes] | None = None
        self.starts = 0
        self._stderr: IO[bytes] | None = None

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def db_path(self) -> Path:
        return self.data_dir / "referee.db"

    @property
    def logs_dir(self) -> Path:
        return self.data_dir / "logs"

    async def start(self, timeout: float = 30.0) -> None:
        """Start it (again on the same port after the first start) and wait until it serves."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.starts += 1
        stderr_path = self.data_dir / f"serve-{self.starts}.err"
        self._stderr = stderr_path.open("wb")
        env = {
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "BRANDELN_ADMIN_TOKEN": self.admin_token,
            "COLUMNS": "200",
        }
        self.process = subprocess.Popen(  # noqa: ASYNC220 - started once, returns at once
            [
                *CLI,
                "serve",
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--db",
                self.database or str(self.db_path),
                "--logs",
                str(self.logs_dir),
            ],
            stdout=subprocess.DEVNULL,
            stderr=self._stderr,
            env=env,
        )
        deadline = time.monotonic() + timeout
        while True:
            found = _LISTENING.search(stderr_path.read_text(errors="replace"))
            if found:
                self.port = int(found.group(2))
                return
            if self.process.poll() is not None:
                raise RuntimeError(f"the referee exited: {stderr_path.read_text()}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"the referee did not start: {stderr_path.read_text()}")
            await asyncio.sleep(0.05)

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def rss_kb(self) -> int:
        assert self.process is not None
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        raise RuntimeError("no VmRSS")

    def kill(self) -> None:
        """SIGKILL: no chance to record anything."""
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()
        self._close_stderr()

    def stop(self) -> int:
        """SIGTERM (running matches are recorded as aborted); the exit code."""
        if self.process is None:
            return 0
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._close_stderr()
        return self.process.returncode

    def _close_stderr(self) -> None:
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None


class Admin:
    """The Admin service with the admin token."""

    def __init__(self, address: str, token: str) -> None:
        self.channel = grpc.aio.insecure_channel(
            address, options=[("grpc.max_receive_message_length", 64 * 1024 * 1024)]
        )
        self.stub = admin_pb2_grpc.AdminStub(self.channel)
        self.metadata = (("authorization", f"Bearer {token}"),)

    async def close(self) -> None:
        await self.channel.close()

    async def register(self, name: str) -> admin_pb2.RegisterBotResponse:
        return await self.stub.RegisterBot(
            admin_pb2.RegisterBotRequest(name=name), metadata=self.metadata, timeout=10
        )

    async def sessions(self) -> list[admin_pb2.SessionInfo]:
        reply = await self.stub.ListSessions(
            admin_pb2.ListSessionsRequest(), metadata=self.metadata, timeout=10
        )
        return list(reply.sessions)

    async def get_match(self, match_id: str) -> admin_pb2.GetMatchResponse:
        return await self.stub.GetMatch(
            admin_pb2.GetMatchRequest(match_id=match_id), metadata=self.metadata, timeout=30
        )

    async def wait_until_up(self, timeout: float = 30.0) -> None:
        async with asyncio.timeout(timeout):
            while True:
                try:
                    await self.stub.ListBots(
                        admin_pb2.ListBotsRequest(), metadata=self.metadata, timeout=2
                    )
                    return
                except grpc.aio.AioRpcError:
                    await asyncio.sleep(0.1)


# --- one match --------------------------------------------------------------------------------
@dataclass
class MatchRun:
    """One RunMatch of the suite and what came of it."""

    behaviour: str
    seats: tuple[str, ...]  # identity names by seat
    hostile: tuple[int, ...]  # the seats of the behaviour's bot
    seed: int
    deals: int
    match_id: str = ""
    summary: admin_pb2.MatchSummary | None = None
    error: str = ""  # the RunMatch failure (a referee killed mid-match)
    epoch: int = 0  # how many referee restarts had happened when it started

    @property
    def finished(self) -> bool:
        return self.summary is not None and self.summary.status == "finished"


async def run_match(
    admin: Admin,
    run: MatchRun,
    bot_ids: dict[str, str],
    *,
    on_started: Any = None,
) -> MatchRun:
    """Play ``run`` through RunMatch; fills in its match id and result (or error). A match
    whose stream says nothing for :data:`STALL_S` (after the seat wait, for its start) is
    given up as stuck."""
    request = admin_pb2.RunMatchRequest(
        bot_ids=[bot_ids[name] for name in run.seats],
        ruleset="standard",
        deals=run.deals,
        seed=run.seed,
        time_control=cards_pb2.TimeControl(
            move_ms=MOVE_MS, bank_ms=BANK_MS, max_strikes=MAX_STRIKES, reconnect_ms=RECONNECT_MS
        ),
        seat_wait_ms=SEAT_WAIT_MS,
    )
    call = admin.stub.RunMatch(request, metadata=admin.metadata)
    wait = SEAT_WAIT_MS / 1000 + STALL_S
    try:
        while True:
            try:
                async with asyncio.timeout(wait):
                    update = await call.read()
            except TimeoutError:
                call.cancel()
                run.error = f"stuck: no update in {wait:g} s"
                return run
            if update is grpc.aio.EOF:
                return run
            assert isinstance(update, admin_pb2.MatchUpdate)
            wait = STALL_S
            kind = update.WhichOneof("kind")
            if kind == "started":
                run.match_id = update.started.match_id
                if on_started is not None:
                    on_started(run)
            elif kind == "result":
                run.summary = update.result
    except grpc.aio.AioRpcError as error:
        run.error = f"{error.code().name}: {error.details()}"
    return run


def check_match(run: MatchRun, recorded: admin_pb2.GetMatchResponse) -> list[str]:
    """The recorded result: index row, log footer, replay (see the module docstring)."""
    problems: list[str] = []
    where = f"{run.behaviour} {run.match_id}"
    summary = run.summary
    if summary is None or summary.status != "finished":
        return [f"{where}: not finished ({run.error or (summary and summary.status)})"]
    row = recorded.summary
    for name in ("status", "balances", "ranks", "forfeited", "strikes", "deals_played"):
        if list_or_value(getattr(row, name)) != list_or_value(getattr(summary, name)):
            problems.append(f"{where}: index {name} {getattr(row, name)} != result's")
    log = read_log(recorded.log_jsonl)
    footer = log.footer
    if footer is None:
        return [*problems, f"{where}: the log has no footer"]
    for name in ("balances", "ranks", "forfeited", "strikes"):
        shown = list(getattr(footer, name))
        if shown != list(getattr(summary, name)):
            problems.append(f"{where}: footer {name} {shown} != result's")
    if footer.status is not MatchStatus.FINISHED or footer.deals_played != summary.deals_played:
        problems.append(f"{where}: footer {footer.status.value} {footer.deals_played} deals")
    report = replay_log(recorded.log_jsonl)
    if not report.reproduced or report.replayed_balances != tuple(summary.balances):
        problems.append(f"{where}: replay not reproduced: {report.problems}")
    strikes = [0] * len(run.seats)
    for penalty in log.penalties():
        strikes[penalty.seat] = penalty.strikes
    if strikes != list(summary.strikes):
        problems.append(f"{where}: penalty records say strikes {strikes}")
    return problems


def list_or_value(value: Any) -> Any:
    return value if isinstance(value, str | int) else list(value)


@dataclass
class SeatEvidence:
    """What the referee told one process's seats besides the match log, by (match id, seat):
    how long each drop left the seat away by the referee's own clock (None: no stream came
    back), and the requests whose answers it read only after they had closed (it rejects
    those as stale)."""

    absences: defaultdict[tuple[str, int], list[int | None]] = field(
        default_factory=lambda: defaultdict(list)
    )
    late_answers: defaultdict[tuple[str, int], set[int]] = field(
        default_factory=lambda: defaultdict(set)
    )

    def update(self, other: SeatEvidence) -> None:
        for key, away in other.absences.items():
            self.absences[key] += away
        for key, ids in other.late_answers.items():
            self.late_answers[key] |= ids


# Every penalty but these is a strike.
_FORFEITS: Final = frozenset({"forfeited", "disconnected"})
_REQUEST_ID = re.compile(r"request (\d+)")


def handling_problems(
    run: MatchRun,
    log_jsonl: str,
    evidence: SeatEvidence | None = None,
    excused: list[str] | None = None,
) -> list[str]:
    """The behaviour's seat handled as :data:`EXPECTED` says, every other seat clean.

    Penalties that the referee's records explain by load (:func:`_load_explains`) may come
    on top, and a forfeit they explain may cut the expected handling short; such a seat is
    noted in ``excused`` instead of being a problem.
    """
    assert run.summary is not None
    evidence = evidence or SeatEvidence()
    log = read_log(log_jsonl)
    time_control = log.header.time_control
    problems = []
    for seat in range(len(run.seats)):
        want = EXPECTED[run.behaviour] if seat in run.hostile else CLEAN
        penalties = [p for p in log.penalties() if p.seat == seat]
        codes = tuple(p.code.value for p in penalties)
        got = Expected(run.summary.strikes[seat], seat in run.summary.forfeited, codes)
        if got == want:
            continue
        who = run.behaviour if seat in run.hostile else run.seats[seat]
        where = f"{run.behaviour} {run.match_id} seat {seat} ({who})"
        load = _load_explains(log, penalties, (run.match_id, seat), evidence, time_control)
        if got.forfeited == bool(_FORFEITS & set(codes)) and _expected_but_for_load(
            codes, load, want.codes
        ):
            if excused is not None:
                reasons = "; ".join(why for why in load if why)
                excused.append(f"{where}: {codes}: {reasons}")
            continue
        away = evidence.absences.get((run.match_id, seat), [])
        problems.append(f"{where}: {got} != {want}; away (ms) {away or 'never'}")
    return problems


def _load_explains(
    log: MatchLog,
    penalties: Sequence[Penalty],
    key: tuple[str, int],
    evidence: SeatEvidence,
    time_control: TimeControlSettings,
) -> list[str]:
    """For each penalty of one seat, why load explains it ("" when it does not):

    - a timeout whose answer the referee read after the deadline (the penalty says so, or it
      rejected the answer as stale later), having waited the full move time for it: a loaded
      machine carried the answer late;
    - a timeout having waited the full move time while the seat was away (reconnecting) for
      longer than a move: a loaded machine made the reconnection slow;
    - a forfeit for not coming back, when the referee saw the seat away longer than
      ``reconnect_ms``: a loaded referee accepts new calls late, and a resume is a new call;
    - the forfeit at max_strikes reached through such a timeout.
    """
    move_ms = time_control.move_ms
    reconnect_ms = time_control.reconnect_ms
    away = [a for a in evidence.absences.get(key, []) if a is not None]
    explained: list[str] = []
    load_strike = False
    for penalty in penalties:
        why = ""
        code = penalty.code
        found = _REQUEST_ID.search(penalty.reason)
        if code is SeatOutcome.TIMEOUT and found:
            request_id = int(found.group(1))
            late = "after the deadline" in penalty.reason
            late = late or request_id in evidence.late_answers.get(key, set())
            waited = _waited_ms(log, penalty)
            if late and waited >= move_ms - CLOCK_SLACK_MS:
                why = f"the answer to request {request_id} came late ({waited} ms waited)"
                load_strike = True
            elif waited >= move_ms - CLOCK_SLACK_MS and any(
                a >= move_ms - CLOCK_SLACK_MS for a in away
            ):
                # The seat was away (its stream closed, as the behaviour asks) for longer than
                # a move, and the referee waited the move out: a loaded machine made the
                # reconnection slow (a quiet one takes a few hundred ms).
                why = f"away {max(away)} ms while request {request_id} waited {waited} ms"
                load_strike = True
        elif code is SeatOutcome.DISCONNECTED and any(
            a >= reconnect_ms - CLOCK_SLACK_MS for a in away
        ):
            why = f"away {max(away)} ms by the referee's clock (reconnect_ms {reconnect_ms})"
        elif code is SeatOutcome.FORFEITED and load_strike:
            why = "max_strikes reached through a late answer"
        explained.append(why)
    return explained


def _waited_ms(log: MatchLog, penalty: Penalty) -> int:
    """How long the referee waited for the decision a timeout penalty ended (its fallback's
    decision record, the next of the seat's after the penalty)."""
    after = False
    for record in log.records:
        if record is penalty:
            after = True
        elif after and isinstance(record, DecisionRecord) and record.seat == penalty.seat:
            return record.latency_ms if record.outcome is SeatOutcome.TIMEOUT else 0
    return 0


def _expected_but_for_load(codes: Sequence[str], load: Sequence[str], want: Sequence[str]) -> bool:
    """``codes`` are ``want`` with penalties load explains on top; a forfeit load explains may
    cut ``want`` short (a forfeited seat is asked nothing more)."""
    matched = 0
    forfeited_by_load = False
    for code, why in zip(codes, load, strict=True):
        if matched < len(want) and code == want[matched]:
            matched += 1
        elif why:
            forfeited_by_load = forfeited_by_load or code in _FORFEITS
        else:
            return False
    return matched == len(want) or forfeited_by_load


SessionTimes = Mapping[str, tuple[int, int | None]]


def session_times(db_path: Path) -> dict[str, tuple[int, int | None]]:
    """The referee's own record of every seat session: (opened_at, closed_at) in ms by id."""
    with sqlite3.connect(f"file:{db_path}?mode=ro", uri=True) as db:
        rows = db.execute("SELECT session_id, opened_at, closed_at FROM sessions").fetchall()
    return {row[0]: (int(row[1]), None if row[2] is None else int(row[2])) for row in rows}


def seat_evidence(records: Iterable[dict[str, Any]], sessions: SessionTimes) -> SeatEvidence:
    """What one process's records and the referee's session times say of its seats
    (:class:`SeatWatch`)."""
    watch = SeatWatch()
    for record in records:
        watch.add(record)
    return watch.evidence(sessions)


class SeatWatch:
    """Follows one process's records (one at a time, so a judge reading a large file keeps
    only what it needs) for :class:`SeatEvidence`:

    - each drop (a stream that ended in a match) is paired with the stream that came back for
      the seat (the next one of the same seat session the referee welcomed), so the referee's
      session times tell how long the seat was away;
    - each stale rejection of a request this stream was sent says the referee read its
      answer only after the request had closed.
    """

    def __init__(self) -> None:
        self.session_of: dict[int, int] = {}  # stream -> the bot's seat session that opened it
        self.welcomed: dict[int, str] = {}  # stream -> the referee's session id
        self.playing: dict[int, tuple[str, int]] = {}  # stream -> (match id, seat)
        self.asked: dict[int, dict[int, tuple[str, int]]] = defaultdict(dict)  # by stream
        self.drops: list[tuple[int, tuple[str, int]]] = []
        self.late_answers: defaultdict[tuple[str, int], set[int]] = defaultdict(set)

    def add(self, record: dict[str, Any]) -> None:
        kind, stream = record["kind"], record.get("stream", 0)
        if kind == "open" and "session" in record:
            self.session_of[stream] = record["session"]
        elif kind == "msg":
            msg = record["msg"]
            if "welcome" in msg:
                self.welcomed[stream] = msg["welcome"]["sessionId"]
            elif "matchStarted" in msg:
                started = msg["matchStarted"]
                self.playing[stream] = (started["matchId"], started.get("seat", 0))
            elif "matchEnded" in msg:
                self.playing.pop(stream, None)
            elif "request" in msg and stream in self.playing:
                # Request ids start again at every table: the latest match that asked wins.
                request_id = int(msg["request"]["requestId"])
                self.asked[stream][request_id] = self.playing[stream]
            elif msg.get("rejected", {}).get("code") == "REJECT_CODE_STALE_REQUEST":
                request_id = int(msg["rejected"].get("requestId", 0))
                if request_id in self.asked.get(stream, {}):
                    self.late_answers[self.asked[stream][request_id]].add(request_id)
        elif kind == "end" and stream in self.playing:
            self.drops.append((stream, self.playing.pop(stream)))

    def evidence(self, sessions: SessionTimes) -> SeatEvidence:
        by_session: dict[int, list[int]] = defaultdict(list)
        for stream in sorted(self.welcomed):
            if stream in self.session_of:
                by_session[self.session_of[stream]].append(stream)
        evidence = SeatEvidence(late_answers=self.late_answers)
        for stream, seat in self.drops:
            session = self.session_of.get(stream, -1)
            later = [s for s in by_session.get(session, []) if s > stream]
            closed = sessions.get(self.welcomed.get(stream, ""), (0, None))[1]
            opened = sessions.get(self.welcomed[later[0]], (None, None))[0] if later else None
            away = None if opened is None or closed is None else opened - closed
            evidence.absences[seat].append(away)
        return evidence


# --- what the bots received ---------------------------------------------------------------------
_SUITS: Final = {"SUIT_CLUBS": "C", "SUIT_SPADES": "S", "SUIT_HEARTS": "H", "SUIT_DIAMONDS": "D"}
_RANKS: Final = {
    "RANK_SEVEN": "7",
    "RANK_EIGHT": "8",
    "RANK_NINE": "9",
    "RANK_TEN": "T",
    "RANK_JACK": "J",
    "RANK_QUEEN": "Q",
    "RANK_KING": "K",
    "RANK_ACE": "A",
}


def card_name(card: dict[str, Any]) -> str:
    """A card as MessageToDict writes it, in notation ("?" for anything else)."""
    return _SUITS.get(card.get("suit", ""), "?") + _RANKS.get(card.get("rank", ""), "?")


@dataclass
class DealBook:
    """The cards of one match as dealt (and played), to judge what each seat was sent."""

    hands: dict[int, list[frozenset[str]]] = field(default_factory=dict)  # by deal number
    played: dict[int, frozenset[str]] = field(default_factory=dict)  # complete deals only

    @staticmethod
    def build(seed: int, deals: int, log_jsonl: str | None) -> DealBook:
        """The deals of a match of this suite (standard, first dealer 0, no permutation),
        computed from its seed like the referee does, and checked against its log."""
        ruleset = find_ruleset("standard")
        book = DealBook()
        for number in range(1, deals + 1):
            deal = deal_cards(ruleset, (number - 1) % ruleset.players, deal_seed(seed, number))
            book.hands[number] = [frozenset(str(card) for card in hand) for hand in deal.hands]
        if log_jsonl:
            log = read_log(log_jsonl)
            for deal_logged in log.deals():
                logged = [frozenset(h.split()) for h in deal_logged.record.hands]
                if logged != book.hands[deal_logged.number]:
                    raise AssertionError(f"deal {deal_logged.number}: hands differ")
            # Card plays are logged inside decision records; public_events gives them back.
            current: set[str] = set()
            for event in log.public_events():
                if isinstance(event.body, CardPlayedRecord):
                    current.add(event.body.card)
                elif isinstance(event.body, DealEndedRecord):
                    book.played[event.deal] = frozenset(current)
                    current = set()
        return book


def read_records(path: Path) -> Iterator[dict[str, Any]]:
    with path.open(encoding="utf-8") as file:
        for line in file:
            if line.endswith("\n"):
                yield json.loads(line)


# A message of a match whose deals are unknown (its log cut short before it said its seed).
UNVERIFIABLE: Final = "unverifiable: "


def leaks(records: Iterable[dict[str, Any]], books: dict[str, DealBook], who: str) -> list[str]:
    """Every message one process received that shows a card its seat may not see."""
    return [text for _, text in leaks_by_match(records, books, who)]


def leaks_by_match(
    records: Iterable[dict[str, Any]], books: dict[str, DealBook], who: str
) -> list[tuple[str, str]]:
    """:func:`leaks`, each with the id of the match it happened in."""
    found: list[tuple[str, str]] = []
    seats: dict[int, tuple[str, int]] = {}  # stream -> (match id, seat)

    def check(stream: int, deal: int, cards: Iterable[str], what: str, own: bool) -> None:
        match_id, seat = seats.get(stream, ("", -1))
        book = books.get(match_id)
        if book is None or deal not in book.hands:
            found.append((match_id, f"{UNVERIFIABLE}{who}: {what} on stream {stream}, deal {deal}"))
            return
        allowed = book.hands[deal][seat] if own else book.played.get(deal)
        if allowed is None:
            return  # a deal cut short by a referee kill: nothing to compare public cards with
        outside = set(cards) - allowed
        if outside:
            found.append((match_id, f"{who}: {what} of deal {deal} seat {seat} has {outside}"))

    for record in records:
        if record["kind"] != "msg":
            continue
        stream, msg = record["stream"], record["msg"]
        if "matchStarted" in msg:
            started = msg["matchStarted"]
            seats[stream] = (started["matchId"], started.get("seat", 0))
        elif "dealStarted" in msg:
            body = msg["dealStarted"]
            hand = [card_name(c) for c in body.get("hand", [])]
            check(stream, body["dealNumber"], hand, "DealStarted.hand", own=True)
        elif "request" in msg:
            body = msg["request"]
            view = body.get("view", {})
            deal = view.get("dealNumber", 0)
            match_id, seat = seats.get(stream, ("", -1))
            if view.get("seat", 0) != seat:
                found.append((match_id, f"{who}: a request for seat {view.get('seat', 0)}"))
            check(stream, deal, [card_name(c) for c in view.get("hand", [])], "view.hand", True)
            legal = [card_name(c["card"]) for c in body.get("legal", []) if "card" in c]
            check(stream, deal, legal, "legal cards", own=True)
            public = [card_name(c) for c in view.get("currentTrick", [])]
            for trick in view.get("tricks", []):
                public += [card_name(c) for c in trick.get("cards", [])]
            check(stream, deal, public, "view tricks", own=False)
        elif "event" in msg:
            event = msg["event"]
            if "dealEnded" in event:
                continue  # the hands are revealed only now
            match_id = seats.get(stream, ("", -1))[0]
            if "hands" in json.dumps(event):
                found.append((match_id, f"{who}: hands in a {sorted(event)} event"))
            deal = event.get("dealNumber", 0)
            if "cardPlayed" in event:
                check(stream, deal, [card_name(event["cardPlayed"]["card"])], "CardPlayed", False)
            if "trickTaken" in event:
                cards = [card_name(c) for c in event["trickTaken"].get("cards", [])]
                check(stream, deal, cards, "TrickTaken", own=False)
        elif "hands" in json.dumps(msg):
            found.append((seats.get(stream, ("", -1))[0], f"{who}: hands in {sorted(msg)}"))
    return found


def status_problems(
    records: Sequence[dict[str, Any]], who: str, excused: list[str] | None = None
) -> list[str]:
    """Each injected fault that expects a status: its stream ended with that status; each
    that expects the lobby: the probe stayed in the lobby. A call gRPC cancelled because the
    referee never took it (:func:`never_accepted`) is noted in ``excused`` instead."""
    ends = {r["stream"]: r for r in records if r["kind"] == "end"}
    probes = {r["stream"]: r for r in records if r["kind"] == "probe"}
    opened = {r["stream"]: float(r["t"]) for r in records if r["kind"] == "open"}
    answered = {r["stream"] for r in records if r["kind"] == "msg"}
    problems = []
    for record in records:
        if record["kind"] != "fault":
            continue
        expect: str = record["expect"]
        stream = record["stream"]
        end = ends.get(stream)
        if expect.startswith("status:"):
            code = end["code"] if end else "no end"
            if code in expect.removeprefix("status:").split("|"):
                continue
            problem = f"{who}: {record['what']}: {code} {end and end['details']!r}, not {expect}"
        elif expect == "lobby" and probes.get(stream, {}).get("outcome") != "lobby":
            problem = f"{who}: {record['what']}: {probes.get(stream)}, not the lobby"
        else:
            continue
        if end is not None and stream not in answered and never_accepted(end, opened.get(stream)):
            if excused is not None:
                excused.append(f"{problem} (gRPC held it {end['t'] - opened[stream]:.0f} s)")
            continue
        problems.append(problem)
    return problems


def never_accepted(end: dict[str, Any], opened_at: float | None) -> bool:
    """The stream's end is gRPC's own cancel of a call the referee did not take in time: not
    the bot's cancel, and at least :data:`UNACCEPTED_CALL_S` after it was opened."""
    return (
        end["code"] == "CANCELLED"
        and end["details"] != CANCELLED_BY_THE_BOT
        and opened_at is not None
        and end["t"] - opened_at >= UNACCEPTED_CALL_S
    )


def faults(records: Iterable[dict[str, Any]]) -> Counter[str]:
    return Counter(r["expect"] for r in records if r["kind"] == "fault")


# --- the fleet's processes ------------------------------------------------------------------------
@dataclass
class BotProcess:
    name: str  # identity name at the referee
    behaviour: str
    out: Path
    process: subprocess.Popen[bytes]


class Fleet:
    """The identities and processes of the fault suite on one referee."""

    def __init__(self, referee: RefereeProcess, work: Path, tables: int) -> None:
        self.referee = referee
        self.work = work
        self.tables = tables
        self.bot_ids: dict[str, str] = {}
        self.tokens: dict[str, str] = {}
        self.processes: list[BotProcess] = []
        self.foreign_file = work / "foreign-matches.txt"
        self.go_file = work / "slow-reader-go.txt"
        self.released_at = 0.0  # wall time of the last release of the slow reader

    async def register(self, admin: Admin, behaviours: Iterable[str]) -> None:
        names = [*HONEST, *behaviours, "revoked-identity"]
        for name in names:
            reply = await admin.register(name)
            self.bot_ids[name], self.tokens[name] = reply.bot_id, reply.token

    def revoke(self, name: str) -> None:
        """Revoke through the CLI, on the files of the running referee."""
        done = subprocess.run(
            [*CLI, "bots", "revoke", name, "--data", str(self.referee.data_dir)],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            check=False,
        )
        if done.returncode != 0:
            raise RuntimeError(f"bots revoke failed: {done.stdout} {done.stderr}")

    def start(self, behaviours: Iterable[str], seed: int = 0) -> None:
        self.foreign_file.write_text("")
        self.go_file.write_text("")
        for name in HONEST:
            self._start(name, "honest", tables=self.tables, seed=seed)
        for n, behaviour in enumerate(behaviours):
            extra: list[str] = []
            if behaviour == "revoked":
                extra = [f"--alt-token={self.tokens['revoked-identity']}"]
            elif behaviour == "foreign-resume":
                extra = ["--foreign-file", str(self.foreign_file)]
            elif behaviour == "slow-reader":
                extra = ["--go-file", str(self.go_file)]
            elif behaviour == "shared-token":
                # A second process with the same token (the probe runs in this one).
                self._start(behaviour, behaviour, seed=seed + n, extra=["--probe"], tag="-probe")
            self._start(behaviour, behaviour, seed=seed + n, extra=extra)

    def _start(
        self,
        name: str,
        behaviour: str,
        *,
        tables: int = 1,
        seed: int = 0,
        extra: Sequence[str] = (),
        tag: str = "",
    ) -> None:
        out = self.work / f"{name}{tag}.jsonl"
        log = (self.work / f"{name}{tag}.log").open("wb")
        argv = [
            sys.executable,
            str(HOSTILE_BOT),
            "--server",
            self.referee.address,
            f"--token={self.tokens[name]}",  # a token may start with "-"
            "--behaviour",
            behaviour,
            "--out",
            str(out),
            "--tables",
            str(tables),
            "--seed",
            str(seed),
            *extra,
        ]
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        process = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=env)
        log.close()
        self.processes.append(BotProcess(name, behaviour, out, process))

    async def wait_ready(self, timeout: float = 90.0) -> None:
        """Until every process has said it is ready (its attacks before play are done)."""
        async with asyncio.timeout(timeout):
            for bot in self.processes:
                while not _has_ready(bot.out):
                    if bot.process.poll() is not None:
                        raise RuntimeError(f"{bot.name} exited: {bot.out.with_suffix('.log')}")
                    await asyncio.sleep(0.05)

    def exited(self) -> list[str]:
        return [f"{b.name}: {b.process.returncode}" for b in self.processes if b.process.poll()]

    def stop(self) -> None:
        for bot in self.processes:
            if bot.process.poll() is None:
                bot.process.terminate()
        for bot in self.processes:
            try:
                bot.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                bot.process.kill()
                bot.process.wait()

    def records(self) -> dict[str, list[dict[str, Any]]]:
        """Every process's records, by its out file's name."""
        return {bot.out.stem: list(read_records(bot.out)) for bot in self.processes}

    def seats_for(self, behaviour: str, rotation: int) -> tuple[tuple[str, ...], tuple[int, ...]]:
        """The identities by seat of a behaviour's table, and its own seats."""
        if behaviour == CONTROL:
            return HONEST, ()
        if behaviour == "shared-token":
            seats = [behaviour, behaviour, HONEST[0], HONEST[1]]
        else:
            seats = [behaviour, HONEST[0], HONEST[1], HONEST[2]]
        shift = rotation % len(seats)
        rotated = tuple(seats[-shift:] + seats[:-shift]) if shift else tuple(seats)
        return rotated, tuple(i for i, name in enumerate(rotated) if name == behaviour)

    def note_foreign(self, match_id: str) -> None:
        """Offer a running match's id to the foreign-resume bot."""
        with self.foreign_file.open("a") as file:
            file.write(match_id + "\n")

    def release_slow_reader(self) -> None:
        self.released_at = time.time()
        with self.go_file.open("a") as file:
            file.write("go\n")

    async def settle(self, timeout: float = SETTLE_S) -> None:
        """Until the streams that end on their own after the matches have ended: every stream
        a fault expects a status of (the idle ones end at the referee's hello timeout) and the
        slow reader's last released one (it says ready again once it is through with it). What
        is still open after ``timeout`` is for the judges to report."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout):
                for bot in self.processes:
                    if bot.behaviour == "honest":
                        continue
                    while _unsettled(bot, self.released_at):  # noqa: ASYNC110 - a file
                        await asyncio.sleep(0.2)


def _unsettled(bot: BotProcess, released_at: float) -> bool:
    waiting: set[int] = set()
    ready_since_release = False
    for record in read_records(bot.out):
        kind = record["kind"]
        if kind == "fault" and record["expect"].startswith(("status:", "lobby")):
            waiting.add(record["stream"])
        elif kind == "end":
            waiting.discard(record["stream"])
        elif kind == "ready" and record["t"] >= released_at:
            ready_since_release = True
    released = bot.behaviour == "slow-reader" and released_at > 0
    return bool(waiting) or (released and not ready_since_release)


def _has_ready(path: Path) -> bool:
    with contextlib.suppress(OSError), path.open(encoding="utf-8") as file:
        return any('"kind":"ready"' in line for line in file)
    return False


# --- one round: every behaviour at its own table, all at once -----------------------------------


@dataclass
class RoundResult:
    """Everything a round left behind, for the tests to judge."""

    runs: dict[str, MatchRun]  # by behaviour
    recorded: dict[str, admin_pb2.GetMatchResponse]  # by match id
    records: dict[str, list[dict[str, Any]]]  # by process (out file stem)
    sessions_after: list[admin_pb2.SessionInfo]
    session_times: dict[str, tuple[int, int | None]]  # the referee's, by session id
    rss_kb_ready: int
    rss_kb_end: int
    alive: bool
    serving: bool
    exited: list[str]
    bot_ids: dict[str, str]


async def play_round(work: Path, behaviours: Sequence[str] = FLEET) -> RoundResult:
    """Start a referee process and the fleet, play one match per behaviour plus a control
    table of honest bots, all at once; collect what every process received."""
    referee = RefereeProcess(work / "referee", admin_token="fault-suite-admin-token")
    await referee.start()
    admin = Admin(referee.address, referee.admin_token)
    fleet = Fleet(referee, work, tables=len(behaviours) + 2)
    try:
        await admin.wait_until_up()
        await fleet.register(admin, behaviours)
        fleet.revoke("revoked-identity")
        fleet.start(behaviours)
        await fleet.wait_ready()
        rss_ready = referee.rss_kb()
        runs: dict[str, MatchRun] = {}
        for n, behaviour in enumerate([CONTROL, *behaviours]):
            seats, hostile = fleet.seats_for(behaviour, rotation=n)
            deals = DEALS_FOR.get(behaviour, DEALS)
            runs[behaviour] = MatchRun(behaviour, seats, hostile, seed=1000 + n, deals=deals)

        def started(run: MatchRun) -> None:
            if run.behaviour == CONTROL:
                fleet.note_foreign(run.match_id)

        async def play(run: MatchRun) -> None:
            await run_match(admin, run, fleet.bot_ids, on_started=started)
            if run.behaviour == "slow-reader":
                fleet.release_slow_reader()

        await asyncio.gather(*(play(run) for run in runs.values()))
        await fleet.settle()
        recorded = {run.match_id: await admin.get_match(run.match_id) for run in runs.values()}
        sessions = await admin.sessions()
        rss_end = referee.rss_kb()
        serving = await _serving(referee.address)
        return RoundResult(
            runs=runs,
            recorded=recorded,
            records=fleet.records(),
            sessions_after=sessions,
            session_times=session_times(referee.db_path),
            rss_kb_ready=rss_ready,
            rss_kb_end=rss_end,
            alive=referee.alive(),
            serving=serving,
            exited=fleet.exited(),
            bot_ids=dict(fleet.bot_ids),
        )
    finally:
        fleet.stop()
        await admin.close()
        referee.stop()


async def _serving(address: str) -> bool:
    """The standard health check of the referee says SERVING."""
    async with grpc.aio.insecure_channel(address) as channel:
        check = channel.unary_unary(
            "/grpc.health.v1.Health/Check",
            request_serializer=health_pb2.HealthCheckRequest.SerializeToString,
            response_deserializer=health_pb2.HealthCheckResponse.FromString,
        )
        reply = await check(health_pb2.HealthCheckRequest(service=""), timeout=5)
    return bool(reply.status == health_pb2.HealthCheckResponse.SERVING)
