"""Where the CLI keeps its data by default: ``./brandeln-data`` (or ``$BRANDELN_DATA``)."""

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
