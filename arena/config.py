"""The referee's configuration: where it keeps its state, and its defaults."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from pathlib import Path

from brandeln.arena.limits import ConnectionLimits, ProtocolLimits
from brandeln.arena.timecontrol import TimeControlSettings

__all__ = ["AdminTokenScope", "RefereeConfig"]


class AdminTokenScope(enum.Enum):
    """Where the admin token of ``RefereeConfig.admin_token`` lives."""

    # Stored (as a hash) in the database, so it outlives the process: `brandeln serve`.
    STORED = "stored"
    # Held in memory for this run only; the database's stored token is left alone, so a
    # short-lived referee (the embedded one of `season run`) never locks out an operator.
    THIS_RUN = "this_run"


@dataclass(frozen=True)
class RefereeConfig:
    """Where the referee keeps its state, and its defaults."""

    db_path: Path  # the SQLite file, unless ``database`` names another
    logs_dir: Path  # an SQLite referee's match logs (a PostgreSQL one keeps them in it)
    # A database URL (``postgresql://...``, ``sqlite:///PATH``) in place of ``db_path``.
    database: str | None = None
    admin_token: str | None = None  # None: keep the stored one, or generate one on first start
    admin_token_scope: AdminTokenScope = AdminTokenScope.STORED
    time_control: TimeControlSettings = field(default_factory=TimeControlSettings)
    seat_wait_ms: int = 10_000
    max_deals: int = 1000
    limits: ProtocolLimits = field(default_factory=ProtocolLimits)
    connections: ConnectionLimits = field(default_factory=ConnectionLimits)
