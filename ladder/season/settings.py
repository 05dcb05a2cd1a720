"""What a season file becomes: frozen dataclasses, validated once when the file is read.

:mod:`brandeln.ladder.season.file` reads a season file (TOML) into these; the rest of the ladder
(the runner, the Admin client, the store) only ever sees them. A :class:`SeasonConfig` may also be
built directly, for one match (``brandeln.ladder.season.one_match``) or in tests: its defaults are a
season file's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

__all__ = [
    "DEFAULT_CONCURRENCY",
    "DEFAULT_CONNECT_TIMEOUT_MS",
    "BotSpec",
    "CommandBot",
    "ExternalBot",
    "RatingParams",
    "RerunSettings",
    "SeasonConfig",
    "TimeControl",
]

DEFAULT_CONCURRENCY: Final = 4
DEFAULT_CONNECT_TIMEOUT_MS: Final = 30_000


@dataclass(frozen=True, slots=True)
class TimeControl:
    """The referee's time control for every match; 0 takes the referee's default."""

    move_ms: int = 0
    bank_ms: int = 0
    max_strikes: int = 0
    reconnect_ms: int = 0


@dataclass(frozen=True, slots=True)
class RatingParams:
    """The TrueSkill environment's parameters (the trueskill package's defaults)."""

    mu: float = 25.0
    sigma: float = 25.0 / 3
    beta: float = 25.0 / 6
    tau: float = 25.0 / 300
    draw_probability: float = 0.10


@dataclass(frozen=True, slots=True)
class CommandBot:
    """A bot the runner registers and launches; ``tables`` = seat sessions it opens.

    ``check``: `brandeln season run` runs `brandeln bot check` on it first and refuses to
    start the season if a check fails.
    """

    name: str
    command: tuple[str, ...]
    tables: int
    check: bool = False


@dataclass(frozen=True, slots=True)
class ExternalBot:
    """A bot that connects by itself under a registered ``bot_id``."""

    name: str
    bot_id: str


BotSpec = CommandBot | ExternalBot


@dataclass(frozen=True, slots=True)
class RerunSettings:
    """A final rerun among the season's ``top`` bots (:mod:`brandeln.ladder.season.rerun`): extra
    blocks while their intervals overlap, at most ``max_blocks`` (None: the rerun's default cap)."""

    top: int
    max_blocks: int | None = None


@dataclass(frozen=True, slots=True)
class SeasonConfig:
    """A validated season file. ``players`` comes from the ruleset; ``seed`` None: the runner
    draws a secret one when the season is created (:mod:`brandeln.ladder.season.commitment`)."""

    name: str
    seed: int | None
    blocks: int
    bots: tuple[BotSpec, ...]
    players: int
    deals_per_match: int
    ruleset: str = "standard"
    options: Mapping[str, str] = field(default_factory=dict)
    time_control: TimeControl = TimeControl()
    concurrency: int = DEFAULT_CONCURRENCY
    connect_timeout_ms: int = DEFAULT_CONNECT_TIMEOUT_MS
    seat_wait_ms: int = 0
    rating: RatingParams = RatingParams()
    source: Path | None = None
    rerun: RerunSettings | None = None  # not a stored setting: asked for at each run

    def bot(self, name: str) -> BotSpec:
        """The bot named ``name``."""
        for bot in self.bots:
            if bot.name == name:
                return bot
        raise KeyError(name)
