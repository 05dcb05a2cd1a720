"""An always-on ladder's seed periods in the ladder store (:mod:`brandeln.ladder.living.periods`): a
period is committed in the transaction that plans its first block (:func:`period_block_seed`,
from :meth:`~brandeln.ladder.store.planned.PlannedBlockStore.plan_block`), so its commitment is
stored before any of its blocks is played, and its seed is read out once every block of it is
recorded. A period's blocks are fixed when it is committed, so "revealed" is a fact of the
recorded blocks, decided in the same read that hands the seed out. They are read through
:class:`brandeln.ladder.store.commitments.CommitmentStore`.
"""

from __future__ import annotations

import json
from typing import Any

import sqlalchemy
from sqlalchemy import and_, func, select

from brandeln.ladder.errors import StorageError
from brandeln.ladder.living.periods import SeedPeriod
from brandeln.ladder.season.commitment import (
    Commitment,
    SeedState,
    commitment_of,
    deal_seed,
    new_secret,
    period_schedule,
)
from brandeln.ladder.store.base import now_ms
from brandeln.ladder.store.schema import BLOCKS, SEASONS, SEED_PERIODS

__all__ = ["period_block_seed", "periods_of", "seed_periods_of"]


def period_block_seed(
    db: sqlalchemy.Connection, season_id: int, ladder: str, index: int, period_blocks: int
) -> int:
    """The number block ``index``'s deals follow from: its period's seed. Inside the
    transaction that plans the block: a block past the last period opens a new one of
    ``period_blocks`` blocks, its seed drawn and committed here."""
    periods = SEED_PERIODS.c
    found = db.execute(
        select(periods.secret_seed).where(
            periods.season_id == season_id,
            periods.first_block <= index,
            periods.first_block + periods.blocks > index,
        )
    ).scalar()
    if found is not None:
        return deal_seed(found)
    last = db.execute(
        select(periods.period, periods.first_block + periods.blocks)
        .where(periods.season_id == season_id)
        .order_by(periods.period.desc())
        .limit(1)
    ).first()
    number, end = (0, 0) if last is None else (last[0] + 1, last[1])
    if index < end:
        raise StorageError(f"ladder {ladder!r}: block {index} lies in no seed period")
    if period_blocks < 1:
        raise StorageError(f"a seed period has at least one block, not {period_blocks}")
    settings = json.loads(
        db.execute(
            select(SEASONS.c.settings_json).where(SEASONS.c.season_id == season_id)
        ).scalar_one()
    )
    secret = new_secret()
    schedule = period_schedule(ladder, settings, number, index, period_blocks)
    db.execute(
        SEED_PERIODS.insert().values(
            season_id=season_id,
            period=number,
            first_block=index,
            blocks=period_blocks,
            secret_seed=secret,
            commitment=commitment_of(secret, schedule),
            commitment_schedule=schedule,
            committed_at=now_ms(),
        )
    )
    return deal_seed(secret)


def seed_periods_of(db: sqlalchemy.Connection, season_id: int) -> list[SeedPeriod]:
    """Every period of a ladder, oldest first (inside a transaction)."""
    return list(reversed(periods_of(db, season_id)))


def periods_of(
    db: sqlalchemy.Connection, season_id: int, *, limit: int | None = None, block: int | None = None
) -> list[SeedPeriod]:
    """A ladder's periods, newest first (at most ``limit``; only the one that deals block
    ``block`` when given), each seed only once every block of its period is recorded."""
    periods = SEED_PERIODS.c
    in_period = and_(
        BLOCKS.c.season_id == periods.season_id,
        BLOCKS.c.block_index >= periods.first_block,
        BLOCKS.c.block_index < periods.first_block + periods.blocks,
    )
    query = (
        select(
            periods.period,
            periods.first_block,
            periods.blocks,
            periods.secret_seed,
            periods.commitment,
            periods.commitment_schedule,
            periods.committed_at,
            func.count(BLOCKS.c.block_index).label("recorded"),
            func.max(BLOCKS.c.finished_at).label("last_finished"),
        )
        .select_from(SEED_PERIODS.outerjoin(BLOCKS, in_period))
        .where(periods.season_id == season_id)
        .group_by(
            periods.period,
            periods.first_block,
            periods.blocks,
            periods.secret_seed,
            periods.commitment,
            periods.commitment_schedule,
            periods.committed_at,
        )
        .order_by(periods.period.desc())
    )
    if block is not None:
        query = query.where(
            periods.first_block <= block, periods.first_block + periods.blocks > block
        )
    if limit is not None:
        query = query.limit(limit)
    return [_period(row) for row in db.execute(query)]


def _period(row: sqlalchemy.Row[Any]) -> SeedPeriod:
    revealed = row.recorded >= row.blocks
    return SeedPeriod(
        period=row.period,
        first_block=row.first_block,
        blocks=row.blocks,
        recorded=row.recorded,
        commitment=Commitment(
            digest=row.commitment,
            schedule=row.commitment_schedule,
            state=SeedState.REVEALED if revealed else SeedState.SECRET,
            committed_at=row.committed_at,
            seed=row.secret_seed if revealed else None,
            revealed_at=row.last_finished if revealed else None,
        ),
    )
