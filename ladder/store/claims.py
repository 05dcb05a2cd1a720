"""Block claims' rows, written inside the transactions of other topic stores: a claim row for every
planned block (:func:`add_claims`, when a season is created or grows) and a block planned and
claimed at once (:func:`plan_claimed_block`, an always-on ladder's next block or a final rerun's).
The claims themselves are taken, refreshed and given back by
:class:`brandeln.ladder.store.blocks.BlockStore`.
"""

from __future__ import annotations

import sqlalchemy
from sqlalchemy import func, select, update

from brandeln.ladder.store.schema import BLOCK_CLAIMS, SEASONS, ClaimState

__all__ = ["add_claims", "plan_claimed_block"]


def add_claims(db: sqlalchemy.Connection, season_id: int, planned: int) -> None:
    """A claim row for every planned block that has none (the season may have grown)."""
    have = db.execute(
        select(func.max(BLOCK_CLAIMS.c.block_index)).where(BLOCK_CLAIMS.c.season_id == season_id)
    ).scalar()
    start = 0 if have is None else int(have) + 1
    if start < planned:
        db.execute(
            BLOCK_CLAIMS.insert(),
            [{"season_id": season_id, "block_index": index} for index in range(start, planned)],
        )


def plan_claimed_block(
    db: sqlalchemy.Connection, season_id: int, index: int, runner: str, now: int
) -> None:
    """Plan block ``index`` of a season, the next after its planned ones, claimed by
    ``runner`` in the same transaction: a block planned one at a time, as the blocks before it
    decide (a season's final rerun), is never open for another runner to take first."""
    db.execute(
        BLOCK_CLAIMS.insert().values(
            season_id=season_id,
            block_index=index,
            state=ClaimState.CLAIMED.value,
            claimed_by=runner,
            claimed_at=now,
            heartbeat_at=now,
        )
    )
    db.execute(
        update(SEASONS)
        .where(SEASONS.c.season_id == season_id)
        .values(blocks_planned=index + 1, updated_at=now)
    )
