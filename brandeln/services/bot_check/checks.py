"""The checks themselves, each a row of the report: the handshake, every phase and ruleset,
and the situations that break bots (a request twice, a rejected answer, time pressure, a
dropped stream, several tables, many matches)."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Sequence

from brandeln.arena.faults import RequestFault
from brandeln.arena.seat import SeatOutcome
from brandeln.arena.session import SeatSession
from brandeln.engine.phase import Phase
from brandeln.engine.plurals import plural
from brandeln.engine.rulesets import find_ruleset
from brandeln.services.bot_check.matches import CheckRun
from brandeln.services.bot_check.report import CheckName, CheckResult, CheckStatus
from brandeln.services.bot_check.settings import (
    CHECK_TIME_CONTROL,
    DROPPED_REQUEST,
    FAULTED_REQUESTS,
)


class Checker(CheckRun):
    """The checks, run one after the other on a :class:`CheckRun`."""

    async def handshake(self) -> SeatSession | None:
        """The bot's first session, once welcomed (None when none came in time)."""
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
            f"welcomed: {plural(len(found), 'session')}, protocol 1, rulesets: {plays}",
        )
        return first

    async def rulesets_and_phases(self, rulesets: Sequence[str]) -> None:
        """A scripted match per ruleset: a row per ruleset, and one per phase the bot met."""
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
        """Requests sent twice: the bot answers once, never a stale request again."""
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
                f"{plural(len(match.seen.faulted), 'request')} sent twice: answered in time, no "
                "stale "
                "answer repeated",
            )

    async def rejected(self, ruleset: str) -> None:
        """Legal answers rejected: the bot answers the request again."""
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
        """A match on a short clock: every decision in time."""
        await self.revive()
        pressure = self.options.pressure
        match = await self.play(ruleset, time_control=pressure)
        latencies = [latency for _, _, _, latency, _ in match.seen.outcomes]
        late = sum(1 for *_, outcome, _, _ in match.seen.outcomes if outcome is SeatOutcome.TIMEOUT)
        budget = f"move_ms={pressure.move_ms}, bank_ms={pressure.bank_ms}"
        slowest = f"slowest answer {max(latencies)} ms" if latencies else "no answer"
        if late or not match.clean:
            what = (
                f"{late} of {plural(len(latencies), 'decision')} timed out"
                if late
                else match.trouble()
            )
            self.add(CheckName.TIME, False, f"{what} ({budget}); {slowest}")
        else:
            self.add(CheckName.TIME, True, f"{len(latencies)} in time ({budget}); {slowest}")

    async def resume(self, ruleset: str) -> None:
        """The bot's stream dropped mid-deal: it resumes the match and answers."""
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
        """One session per table, and as many matches at once, none with a strike."""
        await self.revive()
        count = self.options.tables
        opened = len(await self.wait_sessions(count, 5.0))
        if opened < count:
            self.add(
                CheckName.TABLES,
                False,
                f"it opened {plural(opened, 'session')}; it must open one per table, "
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
                f"{len(bad)} of {plural(count, 'table')} failed: {bad[0].trouble()} "
                f"({plural(opened, 'session')} open; it must open BRANDELN_TABLES={count})",
            )
        else:
            self.add(CheckName.TABLES, True, f"{plural(count, 'match')} at once, no strike")

    async def endurance(self, ruleset: str) -> None:
        """Many matches in a row, as many at once as it has sessions, none with a strike."""
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
        self.add(CheckName.ENDURANCE, True, f"{plural(total, 'match')}, no strike, no restart")


def _phase_row(phase: Phase, tag: str) -> CheckName:
    if tag == "pass-out":
        return CheckName.PASS_OUT
    if tag == "hold":
        return CheckName.HOLD
    if phase is Phase.AUCTION:
        return CheckName.BID
    return CheckName.TRUMP if phase is Phase.TRUMP else CheckName.CARD
