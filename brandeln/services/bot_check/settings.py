"""What a conformance check asks of a bot (its options, the bot itself) and the constants of
its matches: the bot's seat, the faults' places, the time controls."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Final

from brandeln.arena.timecontrol import TimeControlSettings

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


@dataclass(frozen=True, slots=True)
class CheckOptions:
    """What to check and how long to wait (`bot check`'s options)."""

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
