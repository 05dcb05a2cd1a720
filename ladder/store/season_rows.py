"""A season's row, found by name inside a transaction of the ladder store: what every topic of
:class:`brandeln.ladder.store.database.LadderStore` starts from (an unknown name raises
:class:`~brandeln.ladder.errors.UnknownSeasonError` listing the known ones), and the season as the
store hands it out (:class:`SeasonInfo`, :class:`SeasonStatus`).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import sqlalchemy
from sqlalchemy import select

from brandeln.datastore.keys import can_name_a_row
from brandeln.ladder.errors import UnknownSeasonError
from brandeln.ladder.store.schema import SEASONS

__all__ = [
    "SeasonInfo",
    "SeasonStatus",
    "lock_season",
    "season_id_of",
    "season_info",
    "season_named",
    "unknown_season",
]


class SeasonStatus(StrEnum):
    """How the last run of a season ended (stored, so `season list` can tell)."""

    RUNNING = "running"  # being played, or its process was killed without a word
    FINISHED = "finished"  # every planned block is recorded
    INTERRUPTED = "interrupted"  # stopped by Ctrl-C or a cancellation; run it again to resume
    FAILED = "failed"  # stopped by an error (``status_detail`` says which); fix and rerun


@dataclass(frozen=True, slots=True)
class SeasonInfo:
    """A stored season."""

    season_id: int
    name: str
    ruleset: str
    players: int
    blocks_planned: int
    blocks_finished: int
    created_at: int
    updated_at: int
    status: SeasonStatus = SeasonStatus.RUNNING
    status_detail: str = ""  # why it failed


def unknown_season(db: sqlalchemy.Connection, name: str) -> UnknownSeasonError:
    """The error for a season ``name`` that is not stored, listing the seasons that are."""
    names = db.execute(
        select(SEASONS.c.name).order_by(SEASONS.c.created_at, SEASONS.c.season_id)
    ).scalars()
    known = ", ".join(names) or "none yet"
    return UnknownSeasonError(f"no season named {name!r}; seasons: {known}")


def season_id_of(db: sqlalchemy.Connection, name: str) -> int:
    """The id of the season ``name``."""
    if not can_name_a_row(name):
        raise unknown_season(db, name)
    found = db.execute(select(SEASONS.c.season_id).where(SEASONS.c.name == name)).scalar()
    if found is None:
        raise unknown_season(db, name)
    return int(found)


def season_named(db: sqlalchemy.Connection, name: str) -> SeasonInfo:
    """The season ``name``."""
    if not can_name_a_row(name):
        raise unknown_season(db, name)
    row = db.execute(select(SEASONS).where(SEASONS.c.name == name)).first()
    if row is None:
        raise unknown_season(db, name)
    return season_info(row)


def season_info(row: sqlalchemy.Row[Any]) -> SeasonInfo:
    """A row of ``seasons`` as a :class:`SeasonInfo`."""
    return SeasonInfo(
        season_id=row.season_id,
        name=row.name,
        ruleset=row.ruleset,
        players=row.players,
        blocks_planned=row.blocks_planned,
        blocks_finished=row.blocks_recorded,
        created_at=row.created_at,
        updated_at=row.updated_at,
        status=SeasonStatus(row.status),
        status_detail=row.status_detail,
    )


def lock_season(db: sqlalchemy.Connection, name: str) -> tuple[int, int]:
    """(season id, next block to rate), the season's row locked until the transaction ends
    (PostgreSQL; SQLite's BEGIN IMMEDIATE already holds the whole file)."""
    row = db.execute(
        select(SEASONS.c.season_id, SEASONS.c.next_to_rate)
        .where(SEASONS.c.name == name)
        .with_for_update()
    ).first()
    if row is None:
        raise unknown_season(db, name)
    return int(row.season_id), int(row.next_to_rate)
