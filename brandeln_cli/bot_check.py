"""`brandeln bot check`: a bot's conformance to the protocol, against an embedded referee.

The check seats the bot at seat 0 of matches against in-process "house" bots (the random
sample bot) and drives the referee through the situations that break bots. What normal play
never does (a request sent twice, a rejected legal answer, a stream cut mid-deal, a forced
pass-out) is done by a test-only :class:`arena.faults.FaultPolicy` handed to the embedded
referee in this process; no peer can reach it. Each check is one row of the report:

- handshake: the bot's sessions say ``Hello`` and are welcomed;
- bid, hold, trump, card, pass-out: a scripted first deal per ruleset (the bot, forehand, bids
  the lowest contract; a house bot overbids it; the bot is offered only the hold, then names
  trump and plays) and a second deal where every seat is offered only ``pass``;
- ruleset X: the match of that ruleset finished with no strike (every ruleset its Hello lists,
  or ``--ruleset``);
- same request twice, rejected then legal, time pressure, dropped stream resumed, several
  tables at once, many matches.

A command bot is started as a season starts it (``BRANDELN_SERVER``, ``BRANDELN_TOKEN``,
``BRANDELN_TABLES``...) and started again before a check if it has exited; a bot that connects
by itself is told the address and token (:class:`CheckTarget`).
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from arena import codec
from arena.embedded import EmbeddedReferee
from arena.faults import FaultPolicy, RequestFault
from arena.logrecords import MatchStatus
from arena.referee import Referee
from arena.seat import SeatOutcome
from arena.session import SeatSession
from arena.timecontrol import TimeControlSettings
from brandeln.v1 import admin_pb2, cards_pb2
from engine.actions import PASS, Action, Bid
from engine.phase import Phase
from engine.rulesets import RULESET_IDS, find_ruleset
from engine.state import DealState
from ladder.bot_processes import BotProcess, start_bot, stop_bots

__all__ = [
    "CheckName",
    "CheckOptions",
    "CheckReport",
    "CheckResult",
    "CheckStatus",
    "CheckTarget",
    "run_check",
]

BOT_SEAT: Final = 0
CHECKED_NAME: Final = "checked"
HOUSE_NAME: Final = "house"
SEAT_WAIT_MS: Final = 15_000
FAULTED_REQUESTS: Final = (2, 5)  # the bot's requests, counted per match, a fault hits
DROPPED_REQUEST: Final = 3
# Generous where the check is not about time: a loaded machine must not fail a bot.
CHECK_TIME_CONTROL: Final = TimeControlSettings(
    move_ms=2000, bank_ms=10_000, max_strikes=3, reconnect_ms=5000
)
PRESSURE_TIME_CONTROL: Final = TimeControlSettings(
    move_ms=100, bank_ms=1000, max_strikes=3, reconnect_ms=5000
)


class CheckStatus(enum.StrEnum):
    PASS = "pass"
    FAIL = "fail"
    SKIP = "skip"  # does not apply (a ruleset without holds); not a failure


class CheckName(enum.StrEnum):
    HANDSHAKE = "handshake"
    BID = "bid"
    HOLD = "hold"
    TRUMP = "trump"
    CARD = "card"
    PASS_OUT = "pass-out"
    RULESET = "ruleset"
    REPEATED = "same request twice"
    REJECTED = "rejected, then legal"
    TIME = "time pressure"
    RESUME = "dropped stream resumed"
    TABLES = "several tables"
    ENDURANCE = "many matches"


@dataclass(frozen=True, slots=True)
class CheckResult:
    check: CheckName
    status: CheckStatus
    reason: str
    subject: str = ""  # the ruleset of a ruleset row

    @property
    def label(self) -> str:
        return f"{self.check} {self.subject}" if self.subject else str(self.check)


@dataclass(frozen=True, slots=True)
class CheckReport:
    results: tuple[CheckResult, ...]
    bot_name: str = ""  # what its Hello said (bot-supplied: print through terminal_text)
    bot_version: str = ""
    rulesets: tuple[str, ...] = ()  # the rulesets checked

    @property
    def passed(self) -> bool:
        return bool(self.results) and all(r.status is not CheckStatus.FAIL for r in self.results)

    def failures(self) -> list[CheckResult]:
        return [r for r in self.results if r.status is CheckStatus.FAIL]


@dataclass(frozen=True, slots=True)
class CheckOptions:
    rulesets: tuple[str, ...] = ()  # empty: every ruleset the bot's Hello lists
    tables: int = 3  # the several-tables check; the bot is asked to open this many sessions
    matches: int = 10  # the many-matches check
    connect_timeout_s: float = 60.0
    pressure: TimeControlSettings = PRESSURE_TIME_CONTROL


@dataclass(frozen=True, slots=True)
class CheckTarget:
    """The bot: a command to start, or one that connects by itself with ``token``."""

    command: tuple[str, ...] = ()
    token: str | None = None  # the token to accept (a bot configured already); None: fresh
    logs_dir: Path | None = None  # the command's output (default: next to the referee's data)


@dataclass
class _Seen:
    """What the fault policy saw of the bot's seat in one match."""

    outcomes: list[tuple[int, Phase, SeatOutcome, int, str]] = field(default_factory=list)
    # (request id or 0, phase, outcome, latency, tag: "hold", "pass-out" or "")
    faulted: dict[int, RequestFault] = field(default_factory=dict)  # request id -> fault
    stale: Counter[int] = field(default_factory=Counter)  # stale rejections by request id
    requests: int = 0


class _CheckPolicy(FaultPolicy):
    """The check's faults and scripted deals; per match, set before the match starts."""

    def __init__(self) -> None:
        self.scripted: set[str] = set()  # matches whose deals 1 and 2 are scripted
        self.faults: dict[str, dict[int, RequestFault]] = {}  # match -> bot request no. -> fault
        self.seen: defaultdict[str, _Seen] = defaultdict(_Seen)
        self._open: dict[str, int] = {}  # match -> the bot's open request id
        self._hold_offered: set[str] = set()

    def offer(
        self,
        match_id: str,
        seat: int,
        deal_number: int,
        state: DealState,
        legal: Sequence[Action],
    ) -> Sequence[Action]:
        if match_id not in self.scripted or state.phase is not Phase.AUCTION:
            return legal
        if deal_number == 2:
            return [PASS]  # a pass-out (R5.5, R6)
        if deal_number != 1:
            return legal
        bids = [a for a in legal if isinstance(a, Bid) and not a.is_pass]
        contracts = [c.id for c in state.ruleset.contracts]
        if seat == BOT_SEAT:
            lowest = [a for a in bids if a.contract == contracts[0]]
            if lowest and len(bids) == len(contracts):
                return lowest  # the bot opens with the lowest contract
            hold = [a for a in bids if a.contract == contracts[1]]
            if state.ruleset.holds and hold:
                self._hold_offered.add(match_id)
                return hold  # equal to the standing bid: a hold (R5.3)
            return [PASS] if PASS in legal else legal
        second = [a for a in bids if a.contract == contracts[1]]
        if state.ruleset.holds and second and len(bids) == len(contracts) - 1:
            return second  # the first house seat overbids the bot's opening
        return [PASS] if PASS in legal else legal

    def request_fault(
        self, match_id: str, seat: int, request_id: int, deal_number: int, phase: Phase
    ) -> RequestFault:
        if seat != BOT_SEAT:
            return RequestFault.NONE
        seen = self.seen[match_id]
        seen.requests += 1
        self._open[match_id] = request_id
        fault = self.faults.get(match_id, {}).get(seen.requests, RequestFault.NONE)
        if fault is not RequestFault.NONE:
            seen.faulted[request_id] = fault
        return fault

    def decided(
        self,
        match_id: str,
        seat: int,
        deal_number: int,
        phase: Phase,
        outcome: SeatOutcome,
        latency_ms: int,
    ) -> None:
        if seat != BOT_SEAT:
            return
        tag = ""
        if match_id in self.scripted and deal_number == 2:
            tag = "pass-out"
        elif phase is Phase.AUCTION and match_id in self._hold_offered:
            self._hold_offered.discard(match_id)
            tag = "hold"
        request_id = self._open.pop(match_id, 0)
        self.seen[match_id].outcomes.append((request_id, phase, outcome, latency_ms, tag))

    def rejected(
        self, match_id: str, seat: int, request_id: int, rejection: codec.Rejection
    ) -> None:
        if seat == BOT_SEAT and rejection is codec.Rejection.STALE_REQUEST:
            self.seen[match_id].stale[request_id] += 1


@dataclass
class _Match:
    """A finished (or failed) check match."""

    match_id: str
    summary: admin_pb2.MatchSummary | None
    seen: _Seen
    penalties: list[str]  # the bot seat's penalty reasons
    error: str = ""
    note: str = ""  # how the bot's process ended, if it did during the match

    @property
    def strikes(self) -> int:
        return self.summary.strikes[BOT_SEAT] if self.summary is not None else 0

    @property
    def clean(self) -> bool:
        return (
            not self.error
            and self.summary is not None
            and self.summary.status == MatchStatus.FINISHED
            and self.strikes == 0
            and BOT_SEAT not in self.summary.forfeited
        )

    def trouble(self) -> str:
        """Why the match was not clean, in a line."""
        why = self._why()
        return f"{why}; {self.note}" if self.note and self.note not in why else why

    def _why(self) -> str:
        if self.error:
            return self.error
        if self.penalties:
            more = f" (+{len(self.penalties) - 1} more)" if len(self.penalties) > 1 else ""
            return self.penalties[0] + more
        if self.summary is not None and BOT_SEAT in self.summary.forfeited:
            return "forfeited"
        return "the match did not finish"


class _Checker:
    def __init__(
        self,
        embedded: EmbeddedReferee,
        policy: _CheckPolicy,
        options: CheckOptions,
        target: CheckTarget,
        say: Callable[[str], None],
    ) -> None:
        self.embedded = embedded
        self.policy = policy
        self.options = options
        self.target = target
        self.say = say
        self.bot_id = ""
        self.token = ""
        self.house_id = ""
        self.process: BotProcess | None = None  # the latest
        self.processes: list[BotProcess] = []  # every one started, all stopped at the end
        self.exits: list[str] = []  # how earlier processes ended
        self.results: list[CheckResult] = []

    @property
    def referee(self) -> Referee:
        assert self.embedded.referee is not None
        return self.embedded.referee

    # --- the bot's process and sessions --------------------------------------------------
    async def start_bot(self) -> None:
        if not self.target.command:
            return
        logs = self.target.logs_dir or self.embedded.data_dir / "bot"
        self.process = await start_bot(
            CHECKED_NAME,
            self.target.command,
            server=self.embedded.address,
            token=self.token,
            tables=self.options.tables,
            log_path=logs / "bot.log",
        )
        self.processes.append(self.process)

    def process_note(self) -> str:
        """How the bot's process ended, if it did ("" while it runs or for a remote bot)."""
        process = self.process
        if process is None or not process.exited:
            return ""
        lines = [
            line for line in process.log_tail(6).splitlines() if not line.startswith("--- start")
        ]
        tail = " | ".join(lines[-3:])
        return f"its process exited with code {process.process.returncode}" + (
            f": {tail}" if tail else ""
        )

    async def exit_note(self) -> str:
        """:meth:`process_note`, once the output of a process that exited is in its log."""
        if self.process is not None and self.process.exited:
            await self.process.output_written()
        return self.process_note()

    async def revive(self) -> None:
        """Start the bot again if its process has exited (each check starts from a live bot)."""
        note = await self.exit_note()
        if note:
            self.exits.append(note)
            assert self.process is not None
            # What the dead one started may live on, holding sessions with the bot's token.
            await stop_bots([self.process])
            await self.start_bot()
            await self.wait_sessions(1, self.options.connect_timeout_s)

    def sessions(self) -> list[SeatSession]:
        return [s for s in self.referee.lobby.sessions() if s.bot_id == self.bot_id]

    async def wait_sessions(self, count: int, timeout_s: float) -> list[SeatSession]:
        deadline = time.monotonic() + timeout_s
        while len(self.sessions()) < count and time.monotonic() < deadline:
            if self.process is not None and self.process.exited:
                break
            await asyncio.sleep(0.05)
        return self.sessions()

    # --- matches ----------------------------------------------------------------------------
    async def play(
        self,
        ruleset: str,
        *,
        scripted: bool = False,
        faults: dict[int, RequestFault] | None = None,
        time_control: TimeControlSettings = CHECK_TIME_CONTROL,
    ) -> _Match:
        players = find_ruleset(ruleset).players
        request = admin_pb2.RunMatchRequest(
            bot_ids=[self.bot_id] + [self.house_id] * (players - 1),
            ruleset=ruleset,
            deals=players,
            seed=len(self.policy.seen) + 1,  # a different deal set for every match
            first_dealer=(BOT_SEAT - 1) % players,  # the bot is forehand in deal 1
            time_control=cards_pb2.TimeControl(
                move_ms=time_control.move_ms,
                bank_ms=time_control.bank_ms,
                max_strikes=time_control.max_strikes,
                reconnect_ms=time_control.reconnect_ms,
            ),
            seat_wait_ms=SEAT_WAIT_MS,
        )
        try:
            table = await self.referee.start_match(request)
        except Exception as error:
            note = await self.exit_note()
            detail = f"{error}" + (f"; {note}" if note else "")
            return _Match("", None, _Seen(), [], f"could not seat the bot: {detail}")
        # The table's task has not run yet (no await since it was created): the policy knows
        # this match's script and faults before its first deal.
        match_id = table.spec.match_id
        if scripted:
            self.policy.scripted.add(match_id)
        self.policy.faults[match_id] = dict(faults or {})
        seen = self.policy.seen[match_id]
        await table.done.wait()
        penalties = [p.reason for p in table.penalties if p.seat == BOT_SEAT]
        return _Match(match_id, table.summary, seen, penalties, note=await self.exit_note())

    # --- the checks ---------------------------------------------------------------------------
    def add(self, check: CheckName, ok: bool, reason: str, subject: str = "") -> None:
        status = CheckStatus.PASS if ok else CheckStatus.FAIL
        self.results.append(CheckResult(check, status, reason, subject))

    async def handshake(self) -> SeatSession | None:
        found = await self.wait_sessions(1, self.options.connect_timeout_s)
        if not found:
            why = await self.exit_note() or "is it running, with this address and token?"
            self.add(
                CheckName.HANDSHAKE,
                False,
                f"no session within {self.options.connect_timeout_s:g} s: {why}",
            )
            return None
        # A moment for the other tables' sessions to arrive.
        found = await self.wait_sessions(self.options.tables, 2.0)
        first = found[0]
        plays = ", ".join(sorted(first.rulesets)) or "all"
        self.add(
            CheckName.HANDSHAKE,
            True,
            f"welcomed: {len(found)} session(s), protocol 1, rulesets: {plays}",
        )
        return first

    async def rulesets_and_phases(self, rulesets: Sequence[str]) -> None:
        phase_rows: dict[CheckName, list[str]] = {
            name: []
            for name in (
                CheckName.BID,
                CheckName.HOLD,
                CheckName.TRUMP,
                CheckName.CARD,
                CheckName.PASS_OUT,
            )
        }
        counts: Counter[CheckName] = Counter()
        holds_apply = False
        for ruleset in rulesets:
            await self.revive()
            match = await self.play(ruleset, scripted=True)
            decisions = len(match.seen.outcomes)
            self.add(
                CheckName.RULESET,
                match.clean,
                f"{find_ruleset(ruleset).players} deals, {decisions} decisions, no strike"
                if match.clean
                else match.trouble(),
                ruleset,
            )
            holds_apply = holds_apply or find_ruleset(ruleset).holds
            for request_id, phase, outcome, _, tag in match.seen.outcomes:
                row = _phase_row(phase, tag)
                counts[row] += 1
                # A forfeited seat is not asked: its strikes are reported where they fell.
                if outcome not in (SeatOutcome.OK, SeatOutcome.FORFEITED):
                    phase_rows[row].append(
                        f"{ruleset}: request {request_id} {outcome}"
                        + (f" ({match.penalties[0]})" if match.penalties else "")
                    )
        for row, problems in phase_rows.items():
            if row is CheckName.HOLD and not holds_apply:
                self.results.append(
                    CheckResult(row, CheckStatus.SKIP, "no ruleset checked has holds")
                )
                continue
            if problems:
                self.add(row, False, problems[0])
            elif counts[row] == 0:
                self.add(row, False, "the bot was never asked (its matches did not get there)")
            else:
                self.add(row, True, f"{counts[row]} answered legally")

    async def repeated(self, ruleset: str) -> None:
        await self.revive()
        faults = dict.fromkeys(FAULTED_REQUESTS, RequestFault.SEND_TWICE)
        match = await self.play(ruleset, faults=faults)
        again = [rid for rid, n in match.seen.stale.items() if n > 1]
        if again:
            self.add(
                CheckName.REPEATED,
                False,
                f"answered request {again[0]} again after it was rejected as stale "
                f"({match.seen.stale[again[0]]} times): a stale request needs no answer",
            )
        elif not match.clean:
            self.add(CheckName.REPEATED, False, match.trouble())
        else:
            self.add(
                CheckName.REPEATED,
                True,
                f"{len(match.seen.faulted)} requests sent twice: answered in time, no stale "
                "answer repeated",
            )

    async def rejected(self, ruleset: str) -> None:
        await self.revive()
        faults = dict.fromkeys(FAULTED_REQUESTS, RequestFault.REJECT_FIRST_ANSWER)
        match = await self.play(ruleset, faults=faults)
        failed = [
            (rid, outcome)
            for rid, _, outcome, _, _ in match.seen.outcomes
            if rid in match.seen.faulted and outcome is not SeatOutcome.OK
        ]
        if failed:
            rid, outcome = failed[0]
            self.add(
                CheckName.REJECTED,
                False,
                f"no second answer to request {rid} after its rejection ({outcome}): a "
                "rejected request stays open, answer it again",
            )
        elif not match.clean:
            self.add(CheckName.REJECTED, False, match.trouble())
        else:
            self.add(
                CheckName.REJECTED,
                True,
                f"{len(match.seen.faulted)} answers rejected, each answered again legally",
            )

    async def time_pressure(self, ruleset: str) -> None:
        await self.revive()
        pressure = self.options.pressure
        match = await self.play(ruleset, time_control=pressure)
        latencies = [latency for _, _, _, latency, _ in match.seen.outcomes]
        late = sum(1 for *_, outcome, _, _ in match.seen.outcomes if outcome is SeatOutcome.TIMEOUT)
        budget = f"move_ms={pressure.move_ms}, bank_ms={pressure.bank_ms}"
        slowest = f"slowest answer {max(latencies)} ms" if latencies else "no answer"
        if late or not match.clean:
            what = f"{late} of {len(latencies)} decisions timed out" if late else match.trouble()
            self.add(CheckName.TIME, False, f"{what} ({budget}); {slowest}")
        else:
            self.add(CheckName.TIME, True, f"{len(latencies)} in time ({budget}); {slowest}")

    async def resume(self, ruleset: str) -> None:
        await self.revive()
        match = await self.play(ruleset, faults={DROPPED_REQUEST: RequestFault.DROP_STREAM})
        dropped = [
            outcome
            for rid, _, outcome, _, _ in match.seen.outcomes
            if match.seen.faulted.get(rid) is RequestFault.DROP_STREAM
        ]
        reconnect = CHECK_TIME_CONTROL.reconnect_ms
        if dropped and dropped[0] is SeatOutcome.OK and match.clean:
            self.add(CheckName.RESUME, True, "resumed the match and answered the request")
        elif not dropped or dropped[0] is SeatOutcome.DISCONNECTED:
            self.add(
                CheckName.RESUME,
                False,
                f"did not resume within {reconnect} ms after the referee dropped its stream "
                "mid-deal (reconnect with the same token and resume_match_id)"
                + (f"; {match.note}" if match.note else ""),
            )
        else:
            self.add(CheckName.RESUME, False, match.trouble())

    async def tables(self, ruleset: str) -> None:
        await self.revive()
        count = self.options.tables
        opened = len(await self.wait_sessions(count, 5.0))
        if opened < count:
            self.add(
                CheckName.TABLES,
                False,
                f"it opened {opened} session(s); it must open one per table, "
                f"BRANDELN_TABLES={count}",
            )
            return
        matches = await asyncio.gather(*(self.play(ruleset) for _ in range(count)))
        bad = [m for m in matches if not m.clean]
        if bad:
            opened = len(self.sessions())
            self.add(
                CheckName.TABLES,
                False,
                f"{len(bad)} of {count} tables failed: {bad[0].trouble()} ({opened} session(s) "
                f"open; it must open BRANDELN_TABLES={count})",
            )
        else:
            self.add(CheckName.TABLES, True, f"{count} matches at once, no strike")

    async def endurance(self, ruleset: str) -> None:
        await self.revive()
        total, played = self.options.matches, 0
        at_once = max(1, min(self.options.tables, len(self.sessions())))
        while played < total:
            batch = min(at_once, total - played)
            matches = await asyncio.gather(*(self.play(ruleset) for _ in range(batch)))
            for match in matches:
                played += 1
                if not match.clean:
                    self.add(
                        CheckName.ENDURANCE,
                        False,
                        f"match {played} of {total}: {match.trouble()}",
                    )
                    return
        self.add(CheckName.ENDURANCE, True, f"{total} matches, no strike, no restart")


def _phase_row(phase: Phase, tag: str) -> CheckName:
    if tag == "pass-out":
        return CheckName.PASS_OUT
    if tag == "hold":
        return CheckName.HOLD
    if phase is Phase.AUCTION:
        return CheckName.BID
    return CheckName.TRUMP if phase is Phase.TRUMP else CheckName.CARD


async def run_check(
    data_dir: Path,
    target: CheckTarget,
    options: CheckOptions | None = None,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    say: Callable[[str], None] = lambda line: None,
    ready: Callable[[str, str], None] | None = None,
) -> CheckReport:
    """Run every check on an embedded referee in ``data_dir`` and report.

    ``ready(address, token)`` is called once the referee listens (for a bot that connects by
    itself); ``say`` gets a line as each check starts.
    """
    from sample_bots.random_bot import RandomBot  # noqa: PLC0415
    from sample_bots.sdk import SessionOptions, play  # noqa: PLC0415

    options = options or CheckOptions()
    policy = _CheckPolicy()
    async with EmbeddedReferee(data_dir, host, port, faults=policy) as embedded:
        checker = _Checker(embedded, policy, options, target, say)
        referee = checker.referee
        # A bot configured already keeps its token: the referee accepts it for this run.
        record, checker.token = referee.store.register_bot(CHECKED_NAME, target.token)
        checker.bot_id = record.bot_id
        house, house_token = referee.register_bot(HOUSE_NAME)
        checker.house_id = house.bot_id
        seats = max(find_ruleset(r).players for r in RULESET_IDS) - 1
        house_task = asyncio.create_task(
            play(
                RandomBot,
                SessionOptions(server=embedded.address, token=house_token),
                tables=seats * options.tables,
            )
        )
        try:
            if ready is not None:
                ready(embedded.address, checker.token)
            await checker.start_bot()
            say("handshake")
            first = await checker.handshake()
            if first is None:
                return CheckReport(tuple(checker.results))
            # Read now: the session may be gone (dropped on purpose) by the end.
            hello_name = referee.hello_names.get(first.session_id, "")
            claimed = tuple(sorted(first.rulesets)) or RULESET_IDS
            wanted = options.rulesets or claimed
            for ruleset in wanted:
                if ruleset not in claimed:
                    checker.add(
                        CheckName.RULESET,
                        False,
                        f"its Hello does not list it (it plays: {', '.join(claimed)})",
                        ruleset,
                    )
            rulesets = [r for r in wanted if r in claimed]
            if rulesets:
                main = "standard" if "standard" in rulesets else rulesets[0]
                say("phases and rulesets")
                await checker.rulesets_and_phases(rulesets)
                for name, step in (
                    ("same request twice", checker.repeated),
                    ("rejected, then legal", checker.rejected),
                    ("time pressure", checker.time_pressure),
                    ("dropped stream", checker.resume),
                    ("several tables", checker.tables),
                    ("many matches", checker.endurance),
                ):
                    say(name)
                    await step(main)
            return CheckReport(
                tuple(checker.results), hello_name, first.bot_version, tuple(rulesets)
            )
        finally:
            house_task.cancel()
            with contextlib.suppress(BaseException):
                await house_task
            # Each process it started, and whatever they started (ladder.bot_processes).
            await stop_bots(checker.processes)
