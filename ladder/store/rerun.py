"""A season's final rerun in the ladder store (:mod:`brandeln.ladder.season.rerun` decides what it
plays).

No column marks a rerun block, so no migration: the rerun is kept in the season's settings
(``settings_json``, what must not change between runs) under ``"rerun"``, as the index it began at
(``after``: the season's own blocks, all recorded then) and the bots it is among, best first at its
start. Its blocks are blocks of the season from ``after`` on, each planned with its claim in one
transaction (``blocks_planned`` grows by one), so every read of a season shows them, they are rated
in block order like the others, and a block is a rerun block exactly when its index is ``after`` or
more. A season with a rerun keeps its ``blocks``: extending it would give its next blocks the
indexes the rerun took (:func:`planned_blocks_kept`). The topic store ``rerun`` of
:class:`brandeln.ladder.store.database.LadderStore`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import sqlalchemy
from sqlalchemy import func, select, update

from brandeln.datastore.keys import can_name_a_row
from brandeln.ladder.errors import LadderError, SeasonMismatchError
from brandeln.ladder.store.base import TopicStore, now_ms
from brandeln.ladder.store.claims import plan_claimed_block
from brandeln.ladder.store.schema import BLOCK_CLAIMS, SEASONS, ClaimState
from brandeln.ladder.store.season_rows import lock_season, unknown_season

__all__ = ["RERUN_KEY", "RerunRecord", "RerunStore", "planned_blocks_kept"]

RERUN_KEY: Final = "rerun"  # the key of settings_json that holds a season's rerun


@dataclass(frozen=True, slots=True)
class RerunRecord:
    """A season's rerun as stored: where it began, among whom, how many blocks it planned."""

    after: int  # the season's blocks before it: blocks from this index on are rerun blocks
    top: tuple[str, ...]  # the bots it is among, best first when it began
    planned: int  # rerun blocks planned (recorded, or being played)

    def is_rerun_block(self, index: int) -> bool:
        return index >= self.after


def planned_blocks_kept(
    stored: Mapping[str, Any], name: str, blocks: int, source: Path | None
) -> bool:
    """Whether a season's stored settings hold a rerun, so that its planned block count (the
    rerun's blocks included) is kept. Raises :class:`SeasonMismatchError` when the file's
    ``blocks`` is not the count the rerun began after."""
    rerun = stored.get(RERUN_KEY)
    if rerun is None:
        return False
    after = int(rerun["after"])
    if blocks != after:
        where = f" ({source})" if source else ""
        raise SeasonMismatchError(
            f"season {name!r} had a final rerun after its {after} blocks, so its blocks stay "
            f"{after}; the file{where} says {blocks}. Keep blocks = {after}, or give the "
            "season a new name to play more"
        )
    return True


class RerunStore(TopicStore):
    """The rerun's queries of the ladder database (``LadderStore.rerun``)."""

    def rerun(self, season: str) -> RerunRecord | None:
        """The season's rerun; None when it has none."""

        def read(db: sqlalchemy.Connection) -> RerunRecord | None:
            return _record(*_settings_and_planned(db, season))

        return self._read(f"reading the rerun of season {season!r}", read)

    def start_rerun(self, season: str, after: int, top: Sequence[str]) -> RerunRecord:
        """Begin the season's rerun after its ``after`` blocks among ``top``, unless it has one
        already: the stored rerun is returned either way (the first to begin it decides)."""

        def start(db: sqlalchemy.Connection) -> RerunRecord:
            season_id, _ = lock_season(db, season)
            settings, planned = _settings_and_planned(db, season)
            record = _record(settings, planned)
            if record is not None:
                return record
            # Claims reach past the planned count when the file's blocks were lowered.
            last = db.execute(
                select(func.max(BLOCK_CLAIMS.c.block_index)).where(
                    BLOCK_CLAIMS.c.season_id == season_id
                )
            ).scalar()
            planned = max(planned, 0 if last is None else int(last) + 1)
            if planned != after:
                raise LadderError(
                    f"season {season!r} has {planned} blocks planned, not {after}: its rerun "
                    f"begins after them all (blocks = {planned} in its file)"
                )
            settings[RERUN_KEY] = {"after": after, "top": list(top)}
            db.execute(
                update(SEASONS)
                .where(SEASONS.c.season_id == season_id)
                .values(settings_json=json.dumps(settings, sort_keys=True), updated_at=now_ms())
            )
            return RerunRecord(after, tuple(top), 0)

        return self._write(f"beginning the rerun of season {season!r}", start)

    def plan_rerun_block(self, season: str, runner: str, cap: int) -> int | None:
        """Plan the rerun's next block and claim it for ``runner``, in one transaction: its
        index. None when the rerun has ``cap`` blocks already, or when a block of the season is
        not recorded yet (one rerun block at a time: each is chosen on the blocks before it)."""

        def plan(db: sqlalchemy.Connection) -> int | None:
            season_id, _ = lock_season(db, season)
            settings, planned = _settings_and_planned(db, season)
            record = _record(settings, planned)
            if record is None:
                raise LadderError(f"season {season!r} has no rerun to plan a block of")
            unfinished = db.execute(
                select(func.count())
                .select_from(BLOCK_CLAIMS)
                .where(
                    BLOCK_CLAIMS.c.season_id == season_id,
                    BLOCK_CLAIMS.c.block_index < planned,
                    BLOCK_CLAIMS.c.state != ClaimState.DONE.value,
                )
            ).scalar_one()
            if record.planned >= cap or unfinished:
                return None
            plan_claimed_block(db, season_id, planned, runner, now_ms())
            return planned

        return self._write(f"planning a rerun block of season {season!r}", plan)


def _settings_and_planned(db: sqlalchemy.Connection, season: str) -> tuple[dict[str, Any], int]:
    if not can_name_a_row(season):
        raise unknown_season(db, season)
    row = db.execute(
        select(SEASONS.c.settings_json, SEASONS.c.blocks_planned).where(SEASONS.c.name == season)
    ).first()
    if row is None:
        raise unknown_season(db, season)
    settings: dict[str, Any] = json.loads(row.settings_json)
    return settings, int(row.blocks_planned)


def _record(settings: Mapping[str, Any], planned: int) -> RerunRecord | None:
    rerun = settings.get(RERUN_KEY)
    if rerun is None:
        return None
    after = int(rerun["after"])
    return RerunRecord(after, tuple(str(bot) for bot in rerun["top"]), planned - after)
