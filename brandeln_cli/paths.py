"""Where the CLI keeps its data by default: ``./brandeln-data`` (or ``$BRANDELN_DATA``).

Layout of a data folder DATA:

- ``DATA/referee.db``, ``DATA/logs/``: the referee of ``brandeln serve`` (its bots, its admin
  token's hash, its matches) and ``brandeln bots add`` without ``--referee``;
- ``DATA/embedded/referee.db``, ``DATA/embedded/logs/``: the embedded referee of ``season run``
  and ``demo``, kept apart so that it never touches the served referee's token, sessions or
  matches (``matches list/show`` read both);
- ``DATA/ladder.db``: the seasons, whichever referee played them;
- ``DATA/match/bots/``: the output of ``match run``'s command bots.
"""

from __future__ import annotations

import os
from pathlib import Path

DATA_ENV = "BRANDELN_DATA"
ADMIN_TOKEN_ENV = "BRANDELN_ADMIN_TOKEN"


def data_dir() -> Path:
    return Path(os.environ.get(DATA_ENV, "brandeln-data"))


def referee_db(base: Path | None = None) -> Path:
    return (base or data_dir()) / "referee.db"


def logs_dir(base: Path | None = None) -> Path:
    return (base or data_dir()) / "logs"


def embedded_dir(base: Path | None = None) -> Path:
    """The embedded referee's own data folder (``season run`` without ``--referee``)."""
    return (base or data_dir()) / "embedded"


def ladder_db(base: Path | None = None) -> Path:
    """The ladder database in the data folder: ``DATA/ladder.db``."""
    return (base or data_dir()) / "ladder.db"


def match_bots_dir(base: Path | None = None) -> Path:
    """Where ``match run`` writes its command bots' output: ``DATA/match/bots/<bot>.log``."""
    return (base or data_dir()) / "match" / "bots"


def season_bot_logs(base: Path | None, season: str) -> Path:
    """The command bots' logs of a season: ``DATA/seasons/<season>/bots``."""
    return (base or data_dir()) / "seasons" / season / "bots"
