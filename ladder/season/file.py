"""Season files: TOML read with :mod:`tomllib`, validated into
:mod:`brandeln.ladder.season.settings`.

A season file names the bots and how they play. Every error names the file and the bad key::

    name = "autumn"            # the season's key in the ladder database; letters, digits, . _ -
    ruleset = "standard"       # a ruleset id of docs/RULES.md section 6
    seed = 7                   # all deals and the schedule follow from it; leave it out and
                               # the runner draws a secret one, committed before the first
                               # block and revealed after the last
                               # (brandeln.ladder.season.commitment)
    blocks = 12                # duplicate blocks to play
    deals_per_match = 8        # a multiple of the players (default: the ruleset's default)
    concurrency = 4            # matches played at once
    connect_timeout_ms = 30000 # how long the bots get to connect
    seat_wait_ms = 0           # RunMatch's wait for a free session (0 = the referee's default)

    [options]                  # rule switches: head_rule, undertrump, early_stop
    early_stop = "when_decided"

    [time_control]             # 0 = the referee's default
    move_ms = 200
    bank_ms = 2000
    max_strikes = 3
    reconnect_ms = 10000

    [rating]                   # TrueSkill parameters (these are the defaults)
    mu = 25.0
    sigma = 8.333
    beta = 4.1667
    tau = 0.0833
    draw_probability = 0.10

    [rerun]                    # a final rerun among the top bots (brandeln.ladder.season.rerun);
    none by default top = 4                    # among how many (at least a table's seats)
    max_blocks = 12            # its cap (default: as many blocks as the top bots played)

    [[bots]]                   # a bot the runner launches
    name = "random"
    command = ["brandeln", "bot", "run", "random", "--tables", "{tables}"]
    tables = 4                 # seat sessions it opens (default: concurrency)
    check = true               # run `brandeln bot check` on it before the season starts

    [[bots]]                   # a bot that connects by itself, by its registered bot id
    name = "mine"
    bot_id = "b-3f2a..."

**Command bots** are registered by the runner and started with the environment variables
``BRANDELN_SERVER`` (host:port), ``BRANDELN_TOKEN``, ``BRANDELN_BOT_NAME`` and
``BRANDELN_TABLES``; the placeholders ``{server}``, ``{token}``, ``{name}`` and ``{tables}`` in
the command's arguments are replaced by the same values. A string command is split like a shell
would (:func:`shlex.split`), without running a shell.

**Bots that connect by themselves** are given by ``bot_id`` (as printed by ``brandeln bots add``
and ``brandeln bots list``), not by token: the referee seats bots by id, and the ladder never needs
another program's secret.

>>> config = parse_season('name = "s"\\nseed = 1\\nblocks = 2\\n'
...     '[[bots]]\\nname = "a"\\nbot_id = "1"\\n[[bots]]\\nname = "b"\\nbot_id = "2"\\n'
...     '[[bots]]\\nname = "c"\\nbot_id = "3"\\n[[bots]]\\nname = "d"\\nbot_id = "4"\\n')
>>> config.players, config.deals_per_match, [bot.name for bot in config.bots]
(4, 8, ['a', 'b', 'c', 'd'])
"""

from __future__ import annotations

import difflib
import re
import shlex
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from brandeln.engine.errors import EngineError
from brandeln.engine.rulesets import find_ruleset
from brandeln.ladder.errors import SeasonConfigError
from brandeln.ladder.season.settings import (
    DEFAULT_CONCURRENCY,
    DEFAULT_CONNECT_TIMEOUT_MS,
    BotSpec,
    CommandBot,
    ExternalBot,
    RatingParams,
    RerunSettings,
    SeasonConfig,
    TimeControl,
)

__all__ = [
    "NAME_PATTERN",
    "UINT32_MAX",
    "UINT64_MAX",
    "load_season",
    "parse_season",
    "rerun_problem",
]

NAME_PATTERN: Final = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
UINT32_MAX: Final = 2**32 - 1
UINT64_MAX: Final = 2**64 - 1

_TOP_KEYS: Final = (
    "name",
    "ruleset",
    "seed",
    "blocks",
    "deals_per_match",
    "concurrency",
    "connect_timeout_ms",
    "seat_wait_ms",
    "options",
    "time_control",
    "rating",
    "rerun",
    "bots",
)
_TIME_KEYS: Final = ("move_ms", "bank_ms", "max_strikes", "reconnect_ms")
_RATING_KEYS: Final = ("mu", "sigma", "beta", "tau", "draw_probability")
_RERUN_KEYS: Final = ("top", "max_blocks")
_BOT_KEYS: Final = ("name", "command", "tables", "bot_id", "token", "check")


class _Reader:
    """Typed access to one table of the file; every error names the file and the key path."""

    def __init__(self, source: str, table: Mapping[str, Any], path: str, known: tuple[str, ...]):
        self.source = source
        self.table = table
        self.path = path
        for key in table:
            if key not in known:
                close = difflib.get_close_matches(key, known, n=1)
                hint = (
                    f"; did you mean {close[0]!r}?"
                    if close
                    else f"; known keys: {', '.join(known)}"
                )
                raise self.error(key, f"unknown key{hint}")

    def where(self, key: str) -> str:
        return f"{self.path}.{key}" if self.path else key

    def error(self, key: str, problem: str) -> SeasonConfigError:
        return SeasonConfigError(f"{self.source}: {self.where(key)}: {problem}")

    def has(self, key: str) -> bool:
        return key in self.table

    def string(self, key: str, default: str | None = None) -> str:
        if key not in self.table:
            if default is None:
                raise self.error(key, "missing (required)")
            return default
        value = self.table[key]
        if not isinstance(value, str):
            raise self.error(key, f"expected a string, got {_describe(value)}")
        return value

    def boolean(self, key: str, default: bool) -> bool:
        if key not in self.table:
            return default
        value = self.table[key]
        if not isinstance(value, bool):
            raise self.error(key, f"expected true or false, got {_describe(value)}")
        return value

    def integer(
        self, key: str, default: int | None = None, *, low: int = 0, high: int = UINT32_MAX
    ) -> int:
        if key not in self.table:
            if default is None:
                raise self.error(key, "missing (required)")
            return default
        value = self.table[key]
        # bool is an int subclass in Python; `blocks = true` is still a mistake.
        if not isinstance(value, int) or isinstance(value, bool):
            raise self.error(key, f"expected an integer, got {_describe(value)}")
        if not low <= value <= high:
            raise self.error(key, f"must be between {low} and {high}, got {value}")
        return value

    def number(self, key: str, default: float, *, low: float, high: float | None = None) -> float:
        if key not in self.table:
            return default
        value = self.table[key]
        if not isinstance(value, int | float) or isinstance(value, bool):
            raise self.error(key, f"expected a number, got {_describe(value)}")
        if value < low or (high is not None and value >= high):
            bound = f"at least {low}" if high is None else f"in [{low}, {high})"
            raise self.error(key, f"must be {bound}, got {value}")
        return float(value)

    def table_at(self, key: str) -> Mapping[str, Any]:
        value = self.table.get(key, {})
        if not isinstance(value, dict):
            raise self.error(key, f"expected a table, got {_describe(value)}")
        return value


def _describe(value: object) -> str:
    kinds = {bool: "a boolean", int: "an integer", float: "a number", str: "a string"}
    kinds |= {dict: "a table", list: "a list"}
    kind = kinds.get(type(value), f"a {type(value).__name__}")
    return f"{kind} ({value!r})"


def parse_season(text: str, source: str = "<season>", path: Path | None = None) -> SeasonConfig:
    """Parse and validate the text of a season file; ``source`` names it in errors."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise SeasonConfigError(f"{source}: TOML syntax error: {error}") from None
    return _season_from(data, source, path)


def load_season(path: Path) -> SeasonConfig:
    """Read and validate a season file.

    Raises :class:`SeasonConfigError` naming the file (and the key) when it is missing,
    unreadable, not TOML, or invalid.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SeasonConfigError(f"{path}: no such season file") from None
    except (OSError, UnicodeDecodeError) as error:
        raise SeasonConfigError(f"{path}: cannot read the season file: {error}") from None
    return parse_season(text, str(path), path)


def _season_from(data: Mapping[str, Any], source: str, path: Path | None) -> SeasonConfig:
    top = _Reader(source, data, "", _TOP_KEYS)
    name = top.string("name")
    if not NAME_PATTERN.match(name):
        raise top.error(
            "name", f"{name!r} must be 1-64 letters, digits, '.', '_' or '-' (it names files)"
        )

    ruleset_id = top.string("ruleset", "standard")
    options_table = top.table_at("options")
    options: dict[str, str] = {}
    for key, value in options_table.items():
        if not isinstance(value, str):
            raise top.error(f"options.{key}", f"expected a string, got {_describe(value)}")
        options[key] = value
    try:
        ruleset = find_ruleset(ruleset_id)
    except EngineError as error:
        raise top.error("ruleset", str(error)) from None
    try:
        ruleset = ruleset.with_options(**options)
    except EngineError as error:
        raise top.error("options", str(error)) from None

    deals = top.integer("deals_per_match", ruleset.default_deals, low=1)
    if deals % ruleset.players:
        raise top.error(
            "deals_per_match",
            f"must be a multiple of the {ruleset.players} players of {ruleset_id!r} "
            f"(so every seat deals equally often), got {deals}",
        )
    if ruleset.max_deals is not None and deals > ruleset.max_deals:
        raise top.error("deals_per_match", f"{ruleset_id!r} allows at most {ruleset.max_deals}")

    concurrency = top.integer("concurrency", DEFAULT_CONCURRENCY, low=1, high=1024)
    time_reader = _Reader(source, top.table_at("time_control"), "time_control", _TIME_KEYS)
    time_control = TimeControl(**{key: time_reader.integer(key, 0) for key in _TIME_KEYS})
    rating_reader = _Reader(source, top.table_at("rating"), "rating", _RATING_KEYS)
    defaults = RatingParams()
    rating = RatingParams(
        mu=rating_reader.number("mu", defaults.mu, low=float("-inf")),
        sigma=rating_reader.number("sigma", defaults.sigma, low=1e-9),
        beta=rating_reader.number("beta", defaults.beta, low=1e-9),
        tau=rating_reader.number("tau", defaults.tau, low=0.0),
        draw_probability=rating_reader.number(
            "draw_probability", defaults.draw_probability, low=0.0, high=1.0
        ),
    )

    bots = _bots(top, concurrency, ruleset.players)
    return SeasonConfig(
        name=name,
        ruleset=ruleset_id,
        options=options,
        seed=top.integer("seed", high=UINT64_MAX) if top.has("seed") else None,
        blocks=top.integer("blocks", low=1, high=1_000_000),
        deals_per_match=deals,
        players=ruleset.players,
        concurrency=concurrency,
        connect_timeout_ms=top.integer("connect_timeout_ms", DEFAULT_CONNECT_TIMEOUT_MS, low=1),
        seat_wait_ms=top.integer("seat_wait_ms", 0),
        time_control=time_control,
        rating=rating,
        bots=bots,
        source=path,
        rerun=_rerun(top, ruleset.players, len(bots)),
    )


def rerun_problem(top: int, players: int, bots: int) -> str | None:
    """Why a rerun among the top ``top`` of ``bots`` bots cannot be played at tables of
    ``players`` seats (a rerun block seats top bots only), or None.

    >>> rerun_problem(3, 4, 6)
    'must be at least the 4 seats of a table (a rerun block seats top bots only), got 3'
    """
    if top < players:
        return (
            f"must be at least the {players} seats of a table (a rerun block seats top bots "
            f"only), got {top}"
        )
    if top > bots:
        return f"must be at most the season's {bots} bots, got {top}"
    return None


def _rerun(top: _Reader, players: int, bots: int) -> RerunSettings | None:
    if not top.has("rerun"):
        return None
    reader = _Reader(top.source, top.table_at("rerun"), "rerun", _RERUN_KEYS)
    count = reader.integer("top")
    problem = rerun_problem(count, players, bots)
    if problem is not None:
        raise reader.error("top", problem)
    if not reader.has("max_blocks"):
        return RerunSettings(top=count)
    return RerunSettings(top=count, max_blocks=reader.integer("max_blocks", low=1, high=1_000_000))


def _bots(top: _Reader, concurrency: int, players: int) -> tuple[BotSpec, ...]:
    raw = top.table.get("bots")
    if raw is None:
        raise top.error("bots", "missing: add one [[bots]] table per bot")
    if not isinstance(raw, list):
        raise top.error("bots", f"expected [[bots]] tables, got {_describe(raw)}")
    bots: list[BotSpec] = []
    for index, entry in enumerate(raw):
        where = f"bots[{index}]"
        if not isinstance(entry, dict):
            raise top.error(where, f"expected a table, got {_describe(entry)}")
        reader = _Reader(top.source, entry, where, _BOT_KEYS)
        name = reader.string("name")
        if not NAME_PATTERN.match(name):
            raise reader.error("name", f"{name!r} must be 1-64 letters, digits, '.', '_' or '-'")
        if any(bot.name == name for bot in bots):
            raise reader.error("name", f"{name!r} is used by an earlier bot; names must be unique")
        if reader.has("token"):
            raise reader.error(
                "token",
                "give a self-connecting bot by its bot_id (see `brandeln bots list`), not its "
                "token: the referee seats bots by id and the ladder never needs their secret",
            )
        if reader.has("command") == reader.has("bot_id"):
            raise reader.error("command", "give exactly one of 'command' or 'bot_id'")
        check = reader.boolean("check", False)
        if reader.has("bot_id"):
            if reader.has("tables"):
                raise reader.error("tables", "only a command bot has tables (it opens them)")
            if check:
                raise reader.error(
                    "check", "only a command bot can be checked first (the check starts it)"
                )
            bot_id = reader.string("bot_id")
            if not bot_id:
                raise reader.error("bot_id", "must not be empty")
            bots.append(ExternalBot(name=name, bot_id=bot_id))
        else:
            command = _command(reader)
            tables = reader.integer("tables", concurrency, low=1, high=1024)
            bots.append(CommandBot(name=name, command=command, tables=tables, check=check))
    if len(bots) < players:
        raise top.error("bots", f"a table needs {players} bots and the season names {len(bots)}")
    return tuple(bots)


def _command(reader: _Reader) -> tuple[str, ...]:
    value = reader.table["command"]
    if isinstance(value, str):
        try:
            parts = shlex.split(value)
        except ValueError as error:
            raise reader.error("command", f"cannot split {value!r}: {error}") from None
    elif isinstance(value, list) and all(isinstance(part, str) for part in value):
        parts = list(value)
    else:
        raise reader.error(
            "command", f"expected a list of strings or a string, got {_describe(value)}"
        )
    if not parts or not parts[0]:
        raise reader.error("command", "must name a program")
    return tuple(parts)
