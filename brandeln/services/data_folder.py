"""The data folder's layout: ``./brandeln-data`` by default (or ``$BRANDELN_DATA``).

Layout of a data folder DATA:

- ``DATA/referee.db``, ``DATA/logs/``: the referee of ``brandeln serve`` (its bots, its admin
  token's hash, its matches) and ``brandeln bots add`` without ``--referee``;
- ``DATA/embedded/referee.db``, ``DATA/embedded/logs/``: the embedded referee of ``season run``
  and ``demo``, kept apart so that it never touches the served referee's token, sessions or
  matches (``matches list/show`` read both);
- ``DATA/ladder.db``: the seasons, whichever referee played them;
- ``DATA/match/bots/``: the output of ``match run``'s command bots;
- ``DATA/seasons/<season>/bots/``: the output of a season's command bots;
- ``DATA/tables/<table>/bots/``: the output of the sample bots at a table of ``brandeln web``.

The one place these names are spelled, for the CLI, the web front and the benchmarks alike.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Final

DATA_ENV: Final = "BRANDELN_DATA"
ADMIN_TOKEN_ENV: Final = "BRANDELN_ADMIN_TOKEN"
DEFAULT_DATA_DIR: Final = "brandeln-data"
REFEREE_DB: Final = "referee.db"
LADDER_DB: Final = "ladder.db"
LOGS_DIR: Final = "logs"
EMBEDDED_DIR: Final = "embedded"


def data_dir() -> Path:
    """The data folder when none is given: ``$BRANDELN_DATA``, else ``./brandeln-data``."""
    return Path(os.environ.get(DATA_ENV, DEFAULT_DATA_DIR))


def data_origin(base: Path | None = None) -> str:
    """How the data folder ``base`` was chosen, for a message that names the folder: ``--data``,
    ``$BRANDELN_DATA``, or the default ``./brandeln-data`` of the working directory.

    >>> data_origin(Path("a"))
    '--data'
    """
    if base is not None:
        return "--data"
    if DATA_ENV in os.environ:  # as data_dir() reads it
        return f"${DATA_ENV}"
    return f"the default ./{DEFAULT_DATA_DIR}"


def referee_db(base: Path | None = None) -> Path:
    """A referee's database in the data folder: ``DATA/referee.db``."""
    return (base or data_dir()) / REFEREE_DB


def logs_dir(base: Path | None = None) -> Path:
    """A referee's match logs in the data folder: ``DATA/logs``."""
    return (base or data_dir()) / LOGS_DIR


def embedded_dir(base: Path | None = None) -> Path:
    """The embedded referee's own data folder (``season run`` without ``--referee``)."""
    return (base or data_dir()) / EMBEDDED_DIR


def ladder_db(base: Path | None = None) -> Path:
    """The ladder database in the data folder: ``DATA/ladder.db``."""
    return (base or data_dir()) / LADDER_DB


def match_bots_dir(base: Path | None = None) -> Path:
    """Where ``match run`` writes its command bots' output: ``DATA/match/bots/<bot>.log``."""
    return (base or data_dir()) / "match" / "bots"


def season_bot_logs(base: Path | None, season: str) -> Path:
    """The command bots' logs of a season: ``DATA/seasons/<season>/bots``."""
    return (base or data_dir()) / "seasons" / season / "bots"


def table_bots_dir(base: Path | None, table: str) -> Path:
    """The sample bots' output at one of the web's tables: ``DATA/tables/<table>/bots``."""
    return (base or data_dir()) / "tables" / table / "bots"
