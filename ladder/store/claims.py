"""Block claims in the ladder store: which runner plays which block of a season, claimed in a
transaction before the block is played (``FOR UPDATE SKIP LOCKED`` on PostgreSQL,
``BEGIN IMMEDIATE`` on SQLite), kept alive by heartbeats, given back when a runner stops, and
taken over from a runner that is dead or silent (:mod:`brandeln.ladder.season.claims`). A part of
:class:`brandeln.ladder.store.database.LadderStore`, kept apart by topic.
"""

from __future__ import annotations

import sqlalchemy
from sqlalchemy import and_, func, select, update

from brandeln.ladder.season.claims import STALE_CLAIM_MS, runner_alive
from brandeln.ladder.store.base import LadderStoreBase, now_ms
from brandeln.ladder.store.schema import BLOCK_CLAIMS, SEASONS, ClaimState
from brandeln.ladder.store.season_rows import season_id_of, unknown_season

__all__ = ["BlockClaimsMixin", "add_claims", "plan_claimed_block"]


class BlockClaimsMixin(LadderStoreBase):
    """The block claims' queries of :class:`brandeln.ladder.store.database.LadderStore`."""

    def claim_block(
        self, season: str, runner: str, *, stale_after_ms: int = STALE_CLAIM_MS
    ) -> int | None:
        """Claim the first planned block nobody plays: open, or claimed by a runner that is
        dead (this host, process gone) or silent for ``stale_after_ms``. None when there is
        none left. Two runners never get the same block (one transaction, the rows locked)."""

        def claim(db: sqlalchemy.Connection) -> int | None:
            season_id, planned = _season_row_for_claims(db, season)
            claims = BLOCK_CLAIMS.c
            in_season = and_(claims.season_id == season_id, claims.block_index < planned)
            index = db.execute(
                select(claims.block_index)
                .where(in_season, claims.state == ClaimState.OPEN.value)
                .order_by(claims.block_index)
                .limit(1)
                .with_for_update(skip_locked=True)
            ).scalar()
            if index is None:
                cutoff = now_ms() - stale_after_ms
                taken = db.execute(
                    select(claims.block_index, claims.claimed_by, claims.heartbeat_at)
                    .where(in_season, claims.state == ClaimState.CLAIMED.value)
                    .order_by(claims.block_index)
                    .with_for_update(skip_locked=True)
                ).all()
                for row in taken:
                    alive = runner_alive(row.claimed_by or "")
                    if alive is False or (alive is None and (row.heartbeat_at or 0) < cutoff):
                        index = row.block_index
                        break
            if index is None:
                return None
            now = now_ms()
            db.execute(
                update(BLOCK_CLAIMS)
                .where(claims.season_id == season_id, claims.block_index == index)
                .values(
                    state=ClaimState.CLAIMED.value,
                    claimed_by=runner,
                    claimed_at=now,
                    heartbeat_at=now,
                )
            )
            return int(index)

        return self._write(f"claiming a block of season {season!r}", claim)

    def heartbeat(self, season: str, runner: str) -> None:
        """Refresh ``runner``'s claims: it still plays them."""

        def beat(db: sqlalchemy.Connection) -> None:
            season_id = season_id_of(db, season)
            db.execute(
                update(BLOCK_CLAIMS)
                .where(
                    BLOCK_CLAIMS.c.season_id == season_id,
                    BLOCK_CLAIMS.c.claimed_by == runner,
                    BLOCK_CLAIMS.c.state == ClaimState.CLAIMED.value,
                )
                .values(heartbeat_at=now_ms())
            )

        self._write(f"refreshing the claims of season {season!r}", beat)

    def release_claims(self, season: str, runner: str, index: int | None = None) -> None:
        """Give back ``runner``'s unfinished blocks (it stops without playing them), or only
        block ``index`` if it holds it (it could not play it now)."""

        def release(db: sqlalchemy.Connection) -> None:
            season_id = season_id_of(db, season)
            held = and_(
                BLOCK_CLAIMS.c.season_id == season_id,
                BLOCK_CLAIMS.c.claimed_by == runner,
                BLOCK_CLAIMS.c.state == ClaimState.CLAIMED.value,
            )
            if index is not None:
                held = and_(held, BLOCK_CLAIMS.c.block_index == index)
            db.execute(
                update(BLOCK_CLAIMS)
                .where(held)
                .values(state=ClaimState.OPEN.value, claimed_by=None, heartbeat_at=None)
            )

        which = "the claims" if index is None else f"block {index}"
        self._write(f"releasing {which} of season {season!r}", release)

    def claims(self, season: str) -> dict[int, tuple[ClaimState, str | None]]:
        """Every planned block's claim: its state and who holds it."""

        def read(db: sqlalchemy.Connection) -> dict[int, tuple[ClaimState, str | None]]:
            season_id = season_id_of(db, season)
            rows = db.execute(
                select(
                    BLOCK_CLAIMS.c.block_index, BLOCK_CLAIMS.c.state, BLOCK_CLAIMS.c.claimed_by
                ).where(BLOCK_CLAIMS.c.season_id == season_id)
            )
            return {row.block_index: (ClaimState(row.state), row.claimed_by) for row in rows}

        return self._read(f"reading the claims of season {season!r}", read)


def _season_row_for_claims(db: sqlalchemy.Connection, name: str) -> tuple[int, int]:
    row = db.execute(
        select(SEASONS.c.season_id, SEASONS.c.blocks_planned).where(SEASONS.c.name == name)
    ).first()
    if row is None:
        raise unknown_season(db, name)
    return int(row.season_id), int(row.blocks_planned)


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
