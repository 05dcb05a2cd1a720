"""A check run: the bot's process and sessions, and its matches on the embedded referee
against the house bots, each seen through the check's fault policy."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass

from brandeln.arena.embedded import EmbeddedReferee
from brandeln.arena.faults import RequestFault
from brandeln.arena.orders import MatchOrder, TimeControlOrder
from brandeln.arena.referee import Referee
from brandeln.arena.session import SeatSession
from brandeln.arena.store.database import MatchRecord
from brandeln.arena.summaries import record_of
from brandeln.arena.timecontrol import TimeControlSettings
from brandeln.engine.rulesets import find_ruleset
from brandeln.ladder.bots.processes import BotProcess, start_bot, stop_bots
from brandeln.protocol.statuses import MatchStatus
from brandeln.services.bot_check.policy import CheckPolicy, Seen
from brandeln.services.bot_check.report import CheckName, CheckResult, CheckStatus
from brandeln.services.bot_check.settings import (
    BOT_SEAT,
    CHECK_TIME_CONTROL,
    CHECKED_NAME,
    SEAT_WAIT_MS,
    CheckOptions,
    CheckTarget,
)


@dataclass
class CheckMatch:
    """A finished (or failed) check match."""

    match_id: str
    summary: MatchRecord | None  # the match's result as its index row holds it
    seen: Seen
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


class CheckRun:
    """The bot under check: its process (a command bot's), its sessions at the embedded
    referee, its matches there, and the report's rows so far."""

    def __init__(
        self,
        embedded: EmbeddedReferee,
        policy: CheckPolicy,
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
        """Start a command bot as a season starts it (nothing for a bot that connects)."""
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
        """The bot's sessions in the referee's lobby now."""
        return [s for s in self.referee.lobby.sessions() if s.bot_id == self.bot_id]

    async def wait_sessions(self, count: int, timeout_s: float) -> list[SeatSession]:
        """The bot's sessions once it has ``count`` (or the time is up, or its process ended)."""
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
    ) -> CheckMatch:
        """Play one match of ``ruleset``, the bot at its seat against house bots, through the
        policy's script and ``faults``; what the policy saw of it."""
        players = find_ruleset(ruleset).players
        order = MatchOrder(
            bot_ids=(self.bot_id, *[self.house_id] * (players - 1)),
            ruleset=ruleset,
            deals=players,
            seed=len(self.policy.seen) + 1,  # a different deal set for every match
            first_dealer=(BOT_SEAT - 1) % players,  # the bot is forehand in deal 1
            time_control=TimeControlOrder(
                time_control.move_ms,
                time_control.bank_ms,
                time_control.max_strikes,
                time_control.reconnect_ms,
            ),
            seat_wait_ms=SEAT_WAIT_MS,
        )
        try:
            table = await self.referee.start_match(order)
        except Exception as error:
            note = await self.exit_note()
            detail = f"{error}" + (f"; {note}" if note else "")
            return CheckMatch("", None, Seen(), [], f"could not seat the bot: {detail}")
        # The table's task has not run yet (no await since it was created): the policy knows
        # this match's script and faults before its first deal.
        match_id = table.spec.match_id
        if scripted:
            self.policy.scripted.add(match_id)
        self.policy.faults[match_id] = dict(faults or {})
        seen = self.policy.seen[match_id]
        await table.done.wait()
        penalties = [p.reason for p in table.penalties if p.seat == BOT_SEAT]
        summary = record_of(table.summary) if table.summary is not None else None
        return CheckMatch(match_id, summary, seen, penalties, note=await self.exit_note())

    def add(self, check: CheckName, ok: bool, reason: str, subject: str = "") -> None:
        """Add a row: passed when ``ok``, else failed, with its reason."""
        status = CheckStatus.PASS if ok else CheckStatus.FAIL
        self.results.append(CheckResult(check, status, reason, subject))
