"""Season files (TOML) into frozen dataclasses: the front the rest of the project imports.

Two parts, each in a module of its own: what a season becomes, the frozen dataclasses
(:class:`SeasonConfig`, :class:`TimeControl`, :class:`RatingParams`, the bots; in
:mod:`brandeln.ladder.season.settings`), and the reading of a season file, TOML parsed and every key
validated with errors that name the file and the key (:func:`load_season`,
:func:`parse_season`; in :mod:`brandeln.ladder.season.file`, whose docstring shows the file's
format). Every name stays importable from here, so a caller needs one import for both.
"""

from __future__ import annotations

from brandeln.ladder.season.file import (
    NAME_PATTERN,
    UINT32_MAX,
    UINT64_MAX,
    load_season,
    parse_season,
    rerun_problem,
)
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

# The constants too: the CLI checks bot names with NAME_PATTERN, and `match run` and the tests
# read the defaults from here, as they did when they were defined here.
__all__ = [
    "DEFAULT_CONCURRENCY",
    "DEFAULT_CONNECT_TIMEOUT_MS",
    "NAME_PATTERN",
    "UINT32_MAX",
    "UINT64_MAX",
    "BotSpec",
    "CommandBot",
    "ExternalBot",
    "RatingParams",
    "RerunSettings",
    "SeasonConfig",
    "TimeControl",
    "load_season",
    "parse_season",
    "rerun_problem",
]
