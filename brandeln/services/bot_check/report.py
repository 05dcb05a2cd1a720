"""What a conformance check reports: one row per check, each passed, failed or skipped."""

from __future__ import annotations

import enum
from dataclasses import dataclass


class CheckStatus(enum.StrEnum):
    """How a check came out."""

    PASS = "pass"
    FAIL = "fail"
    SKIP = "skip"  # does not apply (a ruleset without holds); not a failure


class CheckName(enum.StrEnum):
    """The checks, as the report's rows name them."""

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
    """One row of the report: a check, how it came out and why."""

    check: CheckName
    status: CheckStatus
    reason: str
    subject: str = ""  # the ruleset of a ruleset row

    @property
    def label(self) -> str:
        """The row's name: the check, and its ruleset for a ruleset row."""
        return f"{self.check} {self.subject}" if self.subject else str(self.check)


@dataclass(frozen=True, slots=True)
class CheckReport:
    """Every row of a check, and what the bot's Hello said of it."""

    results: tuple[CheckResult, ...]
    bot_name: str = ""  # what its Hello said (bot-supplied: print through terminal_text)
    bot_version: str = ""
    rulesets: tuple[str, ...] = ()  # the rulesets checked

    @property
    def passed(self) -> bool:
        """True when there are rows and none failed (a skipped row is no failure)."""
        return bool(self.results) and all(r.status is not CheckStatus.FAIL for r in self.results)

    def failures(self) -> list[CheckResult]:
        """The rows that failed, in the report's order."""
        return [r for r in self.results if r.status is CheckStatus.FAIL]
