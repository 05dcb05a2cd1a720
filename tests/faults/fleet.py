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
- :func:`leaks`: no seat received a card outside its own hand before the deal ended, on every
  message every process received (hands only in ``DealEnded``; ``DealStarted`` and request
  hands and legal cards within the seat's hand as dealt; trick cards among the cards played);
- :func:`status_problems`: every fault a bot injected that the protocol answers with a status
  (``INVALID_ARGUMENT``, ``UNAUTHENTICATED``, ...) got exactly that status.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Final

import grpc
from grpc_health.v1 import health_pb2

from arena.matchlog import public_events, read_log, replay_log
from arena.referee import MAX_SESSIONS_PER_BOT
from arena.table import deal_seed
from brandeln.v1 import admin_pb2, admin_pb2_grpc, cards_pb2
from engine.dealing import deal_cards
from engine.rulesets import find_ruleset

ROOT: Final = Path(__file__).resolve().parents[2]
HOSTILE_BOT: Final = Path(__file__).with_name("hostile_bot.py")
CLI: Final = (sys.executable, "-m", "brandeln_cli")

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

# One time control for every table: generous for a bot that answers at once even on a loaded
# two-core machine, short enough that a bot that does not answer costs a few seconds.
MOVE_MS: Final = 1000
BANK_MS: Final = 1000
MAX_STRIKES: Final = 3
RECONNECT_MS: Final = 3000
SEAT_WAIT_MS: Final = 30_000
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

# The explicit handling of every behaviour (README "Run a referee" lists the limits).
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

    def __init__(self, data_dir: Path, admin_token: str) -> None:
        self.data_dir = data_dir
        self.admin_token = admin_token
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
                str(self.db_path),
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
    """Play ``run`` through RunMatch; fills in its match id and result (or error)."""
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
    try:
        async for update in admin.stub.RunMatch(request, metadata=admin.metadata):
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
    records = read_log(recorded.log_jsonl)
    footer = records[-1] if records else {}
    if footer.get("type") != "footer":
        return [*problems, f"{where}: the log has no footer"]
    for name in ("balances", "ranks", "forfeited", "strikes"):
        if footer[name] != list(getattr(summary, name)):
            problems.append(f"{where}: footer {name} {footer[name]} != result's")
    if footer["status"] != "finished" or footer["deals_played"] != summary.deals_played:
        problems.append(f"{where}: footer {footer['status']} {footer['deals_played']} deals")
    report = replay_log(recorded.log_jsonl)
    if not report.reproduced or report.replayed_balances != tuple(summary.balances):
        problems.append(f"{where}: replay not reproduced: {report.problems}")
    strikes = [0] * len(run.seats)
    for record in records:
        if record["type"] == "penalty":
            strikes[record["seat"]] = record["strikes"]
    if strikes != list(summary.strikes):
        problems.append(f"{where}: penalty records say strikes {strikes}")
    return problems


def list_or_value(value: Any) -> Any:
    return value if isinstance(value, str | int) else list(value)


def penalty_codes(log_jsonl: str, seat: int) -> tuple[str, ...]:
    return tuple(
        r["code"] for r in read_log(log_jsonl) if r["type"] == "penalty" and r["seat"] == seat
    )


def handling_problems(run: MatchRun, log_jsonl: str) -> list[str]:
    """The behaviour's seat handled as :data:`EXPECTED` says, every other seat clean."""
    assert run.summary is not None
    problems = []
    for seat in range(len(run.seats)):
        want = EXPECTED[run.behaviour] if seat in run.hostile else CLEAN
        got = Expected(
            strikes=run.summary.strikes[seat],
            forfeited=seat in run.summary.forfeited,
            codes=penalty_codes(log_jsonl, seat),
        )
        if got != want:
            who = run.behaviour if seat in run.hostile else run.seats[seat]
            problems.append(f"{run.behaviour} {run.match_id} seat {seat} ({who}): {got} != {want}")
    return problems


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
            records = read_log(log_jsonl)
            for record in records:
                if record["type"] == "deal":
                    logged = [frozenset(h.split()) for h in record["hands"]]
                    if logged != book.hands[record["deal_number"]]:
                        raise AssertionError(f"deal {record['deal_number']}: hands differ")
            # Card plays are logged inside decision records; public_events gives them back.
            current: set[str] = set()
            for event in public_events(records):
                if event["kind"] == "card_played":
                    current.add(event["card"])
                elif event["kind"] == "deal_ended":
                    book.played[event["deal"]] = frozenset(current)
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


def status_problems(records: Sequence[dict[str, Any]], who: str) -> list[str]:
    """Each injected fault that expects a status: its stream ended with that status; each
    that expects the lobby: the probe stayed in the lobby."""
    ends = {r["stream"]: r for r in records if r["kind"] == "end"}
    probes = {r["stream"]: r for r in records if r["kind"] == "probe"}
    problems = []
    for record in records:
        if record["kind"] != "fault":
            continue
        expect: str = record["expect"]
        stream = record["stream"]
        if expect.startswith("status:"):
            end = ends.get(stream)
            code = end["code"] if end else "no end"
            if code not in expect.removeprefix("status:").split("|"):
                details = end.get("details", "") if end else ""
                problems.append(f"{who}: {record['what']}: {code} {details!r}, not {expect}")
        elif expect == "lobby" and probes.get(stream, {}).get("outcome") != "lobby":
            problems.append(f"{who}: {record['what']}: {probes.get(stream)}, not the lobby")
    return problems


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
        with self.go_file.open("a") as file:
            file.write("go\n")


def _has_ready(path: Path) -> bool:
    with contextlib.suppress(OSError), path.open(encoding="utf-8") as file:
        return any('"kind":"ready"' in line for line in file)
    return False


# --- one round: every behaviour at its own table, all at once -----------------------------------
# A match of the round that has no result by then is a failure (a table held forever).
MATCH_TIMEOUT_S: Final = 60.0
# Streams that never say hello are ended after this long (servicers.HELLO_TIMEOUT_S), plus slack.
IDLE_END_S: Final = 10.0 + 10.0


@dataclass
class RoundResult:
    """Everything a round left behind, for the tests to judge."""

    runs: dict[str, MatchRun]  # by behaviour
    recorded: dict[str, admin_pb2.GetMatchResponse]  # by match id
    records: dict[str, list[dict[str, Any]]]  # by process (out file stem)
    sessions_after: list[admin_pb2.SessionInfo]
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
            try:
                async with asyncio.timeout(MATCH_TIMEOUT_S):
                    await run_match(admin, run, fleet.bot_ids, on_started=started)
            except TimeoutError:
                run.error = f"no result within {MATCH_TIMEOUT_S:g} s"
            if run.behaviour == "slow-reader":
                fleet.release_slow_reader()

        await asyncio.gather(*(play(run) for run in runs.values()))
        await _settle(fleet, behaviours)
        recorded = {run.match_id: await admin.get_match(run.match_id) for run in runs.values()}
        sessions = await admin.sessions()
        rss_end = referee.rss_kb()
        serving = await _serving(referee.address)
        return RoundResult(
            runs=runs,
            recorded=recorded,
            records=fleet.records(),
            sessions_after=sessions,
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


async def _settle(fleet: Fleet, behaviours: Sequence[str]) -> None:
    """Wait for the streams that end on their own after the matches: the idle ones (the
    referee's hello timeout) and the slow reader's (read once released)."""
    waiting = {"idle": ("idle", 3), "slow-reader": ("slow", 1)}
    async with asyncio.timeout(IDLE_END_S):
        for bot in fleet.processes:
            if bot.behaviour not in waiting or bot.behaviour not in behaviours:
                continue
            purpose, want = waiting[bot.behaviour]
            while _ended(bot.out, purpose) < want:  # noqa: ASYNC110 - polling a file
                await asyncio.sleep(0.1)


def _ended(path: Path, purpose: str) -> int:
    return sum(
        1
        for r in read_records(path)
        if r["kind"] == "end" and str(r["purpose"]).startswith(purpose)
    )


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
