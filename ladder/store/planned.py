"""Planned blocks in the ladder store: an always-on ladder (:mod:`brandeln.ladder.living.ladder`)
plans each block (its players and seed stored, its claim taken) in one transaction before it
plays it, so a ladder killed mid-block plays the very same block when it comes back: no block is
counted twice, and the ratings keep their block order. The topic store ``planned`` of
:class:`brandeln.ladder.store.database.LadderStore`.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import sqlalchemy
from sqlalchemy import select, update

from brandeln.ladder.errors import LadderError
from brandeln.ladder.season.duplicate import block_seed
from brandeln.ladder.store.base import TopicStore, now_ms
from brandeln.ladder.store.claims import plan_claimed_block
from brandeln.ladder.store.periods import period_block_seed
from brandeln.ladder.store.schema import (
    CHALLENGES,
    PLANNED_BLOCKS,
    SEASONS,
    ChallengeState,
)
from brandeln.ladder.store.season_rows import lock_season, season_id_of

__all__ = ["PlannedBlock", "PlannedBlockStore", "PlayHistory"]


@dataclass(frozen=True, slots=True)
class PlannedBlock:
    """A block a ladder planned: its players (rotation 0's seating), seed and ratedness."""

    index: int
    bots: tuple[str, ...]
    seed: int
    rated: bool
    deals: int  # per match
    challenge_id: int | None


@dataclass(frozen=True, slots=True)
class PlayHistory:
    """A ladder's recent play, as matchmaking weighs it: over its newest planned blocks (a
    window), each version's last block (absent: not within the window), and over the rated
    ones among them how often each pair met and how many blocks each version played (the
    pair counts' fair share is measured against the same window)."""

    next_block: int
    last: dict[str, int]
    pairs: dict[frozenset[str], int]
    blocks: dict[str, int]


class PlannedBlockStore(TopicStore):
    """The planned blocks' queries of the ladder database (``LadderStore.planned``)."""

    def plan_block(
        self,
        ladder: str,
        bots: tuple[str, ...],
        ladder_seed: int,
        runner: str,
        *,
        deals: int,
        rated: bool = True,
        challenge_id: int | None = None,
        period_blocks: int | None = None,
    ) -> int:
        """Plan the ladder's next block for ``bots`` and claim it for ``runner``, in one
        transaction; its index (a challenge's is marked planned with it). Its deal seed is the
        block's of ``ladder_seed`` (:func:`brandeln.ladder.season.duplicate.block_seed`), as a
        season's; with ``period_blocks``, of its seed period's committed seed instead (a block
        opening a new period commits it here: :mod:`brandeln.ladder.store.periods`)."""

        def plan(db: sqlalchemy.Connection) -> int:
            season_id, _ = lock_season(db, ladder)
            index = int(
                db.execute(
                    select(SEASONS.c.blocks_planned).where(SEASONS.c.season_id == season_id)
                ).scalar_one()
            )
            now = now_ms()
            seed = ladder_seed
            if period_blocks is not None:
                seed = period_block_seed(db, season_id, ladder, index, period_blocks)
            db.execute(
                PLANNED_BLOCKS.insert().values(
                    season_id=season_id,
                    block_index=index,
                    bots_json=json.dumps(list(bots)),
                    seed=str(block_seed(seed, index)),
                    rated=int(rated),
                    deals=deals,
                    challenge_id=challenge_id,
                    planned_at=now,
                )
            )
            plan_claimed_block(db, season_id, index, runner, now)
            if challenge_id is not None:
                db.execute(
                    update(CHALLENGES)
                    .where(CHALLENGES.c.challenge_id == challenge_id)
                    .values(state=ChallengeState.PLANNED.value, block_index=index)
                )
            return index

        return self._write(f"planning a block of ladder {ladder!r}", plan)

    def planned_block(self, ladder: str, index: int) -> PlannedBlock:
        """Block ``index`` as it was planned (LadderError when it was not)."""

        def read(db: sqlalchemy.Connection) -> PlannedBlock:
            season_id = season_id_of(db, ladder)
            row = db.execute(
                select(PLANNED_BLOCKS).where(
                    PLANNED_BLOCKS.c.season_id == season_id,
                    PLANNED_BLOCKS.c.block_index == index,
                )
            ).first()
            if row is None:
                raise LadderError(f"block {index} of ladder {ladder!r} was never planned")
            return _planned(row)

        return self._read(f"reading block {index} of ladder {ladder!r}", read)

    def replan_block(self, ladder: str, index: int, bots: tuple[str, ...]) -> None:
        """Seat other ``bots`` at a planned block nobody finished (one of its bots left the
        ladder): nothing of it was recorded, so its place in the order is all it keeps."""

        def replan(db: sqlalchemy.Connection) -> None:
            season_id, _ = lock_season(db, ladder)
            db.execute(
                update(PLANNED_BLOCKS)
                .where(
                    PLANNED_BLOCKS.c.season_id == season_id,
                    PLANNED_BLOCKS.c.block_index == index,
                )
                .values(bots_json=json.dumps(list(bots)), planned_at=now_ms())
            )

        self._write(f"planning block {index} of ladder {ladder!r} again", replan)

    def recent_blocks(self, ladder: str, limit: int = 20) -> list[PlannedBlock]:
        """The newest planned blocks, newest first."""

        def read(db: sqlalchemy.Connection) -> list[PlannedBlock]:
            season_id = season_id_of(db, ladder)
            rows = db.execute(
                select(PLANNED_BLOCKS)
                .where(PLANNED_BLOCKS.c.season_id == season_id)
                .order_by(PLANNED_BLOCKS.c.block_index.desc())
                .limit(limit)
            )
            return [_planned(row) for row in rows]

        return self._read(f"reading the blocks of ladder {ladder!r}", read)

    def play_history(self, ladder: str, window: int) -> PlayHistory:
        """What matchmaking weighs, from the newest ``window`` planned blocks, in one read (so
        the next index and the last blocks agree): see :class:`PlayHistory`."""

        def read(db: sqlalchemy.Connection) -> PlayHistory:
            season_id = season_id_of(db, ladder)
            next_block = int(
                db.execute(
                    select(SEASONS.c.blocks_planned).where(SEASONS.c.season_id == season_id)
                ).scalar_one()
            )
            rows = db.execute(
                select(
                    PLANNED_BLOCKS.c.block_index,
                    PLANNED_BLOCKS.c.bots_json,
                    PLANNED_BLOCKS.c.rated,
                )
                .where(PLANNED_BLOCKS.c.season_id == season_id)
                .order_by(PLANNED_BLOCKS.c.block_index.desc())
                .limit(window)
            ).all()
            pairs: Counter[frozenset[str]] = Counter()
            blocks: Counter[str] = Counter()
            last: dict[str, int] = {}
            for row in reversed(rows):
                bots = json.loads(row.bots_json)
                last.update(dict.fromkeys(bots, row.block_index))
                if row.rated:
                    pairs.update(frozenset(pair) for pair in combinations(bots, 2))
                    blocks.update(bots)
            return PlayHistory(next_block, last, dict(pairs), dict(blocks))

        return self._read(f"reading the play of ladder {ladder!r}", read)


def _planned(row: sqlalchemy.Row[Any]) -> PlannedBlock:
    return PlannedBlock(
        row.block_index,
        tuple(json.loads(row.bots_json)),
        int(row.seed),
        bool(row.rated),
        row.deals,
        row.challenge_id,
    )
