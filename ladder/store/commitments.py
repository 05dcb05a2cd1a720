"""Seasons' committed seeds in the ladder store (:mod:`brandeln.ladder.season.commitment`): drawn
and committed when a season is created
(:meth:`~brandeln.ladder.store.seasons.SeasonStore.ensure_season` calls
:func:`new_season_commitment` in its transaction), handed to the runner, and shown to everyone else
only as the commitment until the season is finished: the runner reveals it
(:meth:`CommitmentStore.reveal_season_seed`) when it records the season finished, every
planned block recorded (the final rerun's too, :mod:`brandeln.ladder.store.rerun`).

A revealed seed tells every later deal, so a season whose secret seed is revealed gets no more
blocks: neither a longer file nor a final rerun begun after it (:func:`check_season_commitment`).
An always-on ladder's seed periods (:mod:`brandeln.ladder.store.periods`) are read here too: the
topic store ``commitments`` of :class:`brandeln.ladder.store.database.LadderStore`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import sqlalchemy
from sqlalchemy import select, update

from brandeln.ladder.errors import SeasonMismatchError, StorageError
from brandeln.ladder.living.periods import SeedPeriod
from brandeln.ladder.season.commitment import (
    Commitment,
    SeedState,
    commitment_of,
    deal_seed,
    new_secret,
    public_seed,
    season_schedule,
)
from brandeln.ladder.season.config import SeasonConfig
from brandeln.ladder.store.base import TopicStore, now_ms
from brandeln.ladder.store.periods import periods_of
from brandeln.ladder.store.rerun import RERUN_KEY
from brandeln.ladder.store.schema import SEASONS
from brandeln.ladder.store.season_rows import lock_season, season_id_of

__all__ = [
    "CommitmentStore",
    "check_season_commitment",
    "new_season_commitment",
    "season_commitment_of",
    "season_seed_state",
]


def new_season_commitment(
    name: str, settings: Mapping[str, Any], seed: int | None
) -> dict[str, Any]:
    """The commitment columns of a season: a secret seed drawn now when the season file gives
    none (``seed`` None), else the file's seed, public from the start."""
    secret = new_secret() if seed is None else public_seed(seed)
    schedule = season_schedule(name, settings)
    return {
        "commitment": commitment_of(secret, schedule),
        "commitment_schedule": schedule,
        "secret_seed": secret,
        "seed_public": int(seed is not None),
        "committed_at": now_ms(),
    }


def season_seed_state(public: bool, revealed_at: int | None) -> SeedState:
    """Who may read a season's seed: everyone when public from the start or revealed, else
    the runner alone.

    >>> season_seed_state(False, None), season_seed_state(False, 1), season_seed_state(True, None)
    (<SeedState.SECRET: 'secret'>, <SeedState.REVEALED: 'revealed'>, <SeedState.PUBLIC: 'public'>)
    """
    if public:
        return SeedState.PUBLIC
    return SeedState.SECRET if revealed_at is None else SeedState.REVEALED


def check_season_commitment(
    db: sqlalchemy.Connection,
    season_id: int,
    config: SeasonConfig,
    settings: Mapping[str, Any],
    stored: Mapping[str, Any],
) -> None:
    """For a stored season run again (inside :meth:`ensure_season`'s transaction, before its
    block count is updated; ``stored``: its stored settings): commit a season from before
    commitments (its seed was the file's, public), and refuse more blocks once its secret
    seed is revealed."""
    row = db.execute(select(SEASONS).where(SEASONS.c.season_id == season_id)).one()
    if row.commitment is None:
        if config.seed is None and row.blocks_recorded:
            raise StorageError(
                f"season {config.name!r} has recorded blocks but no committed seed: its "
                "remaining deals cannot follow from the same seed"
            )
        db.execute(
            update(SEASONS)
            .where(SEASONS.c.season_id == season_id)
            .values(**new_season_commitment(config.name, settings, config.seed))
        )
        return
    if season_seed_state(bool(row.seed_public), row.seed_revealed_at) is not SeedState.REVEALED:
        return
    more = config.blocks > row.blocks_planned and RERUN_KEY not in stored
    if more or (config.rerun is not None and RERUN_KEY not in stored):
        asked = f"{config.blocks} blocks" if more else "a final rerun"
        raise SeasonMismatchError(
            f"season {config.name!r} is finished and its seed revealed: {asked} would deal "
            f"from a known seed (it has {row.blocks_planned} blocks). Play them as a new "
            "season (another name)"
        )


def season_commitment_of(row: sqlalchemy.Row[Any]) -> Commitment | None:
    """A season row's commitment as anyone may see it (None: not committed yet)."""
    if row.commitment is None:
        return None
    state = season_seed_state(bool(row.seed_public), row.seed_revealed_at)
    return Commitment(
        digest=row.commitment,
        schedule=row.commitment_schedule,
        state=state,
        committed_at=row.committed_at or 0,
        seed=None if state is SeedState.SECRET else row.secret_seed,
        revealed_at=row.seed_revealed_at,
    )


class CommitmentStore(TopicStore):
    """The committed seeds' and seed periods' queries of the ladder database
    (``LadderStore.commitments``)."""

    def season_commitment(self, season: str) -> Commitment | None:
        """The season's commitment, its seed only once it may be read (see the module doc)."""

        def read(db: sqlalchemy.Connection) -> Commitment | None:
            season_id = season_id_of(db, season)
            row = db.execute(select(SEASONS).where(SEASONS.c.season_id == season_id)).one()
            return season_commitment_of(row)

        return self._read(f"reading the commitment of season {season!r}", read)

    def season_commitments(self) -> dict[str, Commitment]:
        """Every committed season's commitment by name, in one query (a listing's)."""

        def read(db: sqlalchemy.Connection) -> dict[str, Commitment]:
            rows = db.execute(select(SEASONS).where(SEASONS.c.commitment.is_not(None)))
            return {
                row.name: commitment
                for row in rows
                if (commitment := season_commitment_of(row)) is not None
            }

        return self._read("reading the seasons' commitments", read)

    def season_deal_seed(self, season: str) -> int:
        """The number the season's deals follow from (for the runner that plays it: the
        only reader of a secret seed before it is revealed)."""

        def read(db: sqlalchemy.Connection) -> int:
            season_id = season_id_of(db, season)
            seed = db.execute(
                select(SEASONS.c.secret_seed).where(SEASONS.c.season_id == season_id)
            ).scalar()
            if seed is None:
                raise StorageError(f"season {season!r} has no committed seed yet")
            try:
                return deal_seed(seed)
            except ValueError:
                raise StorageError(f"season {season!r}: its stored seed is damaged") from None

        return self._read(f"reading the seed of season {season!r}", read)

    def reveal_season_seed(self, season: str) -> bool:
        """Reveal the season's secret seed if every planned block is recorded (the runner
        calls this when it records the season finished); whether it is revealed now. A seed
        revealed stays revealed."""

        def reveal(db: sqlalchemy.Connection) -> bool:
            season_id, _ = lock_season(db, season)
            row = db.execute(select(SEASONS).where(SEASONS.c.season_id == season_id)).one()
            if row.commitment is None or row.blocks_recorded < row.blocks_planned:
                return False
            if row.seed_revealed_at is None and not row.seed_public:
                db.execute(
                    update(SEASONS)
                    .where(SEASONS.c.season_id == season_id)
                    .values(seed_revealed_at=now_ms())
                )
            return True

        return self._write(f"revealing the seed of season {season!r}", reveal)

    def seed_periods(self, ladder: str, limit: int | None = None) -> list[SeedPeriod]:
        """The ladder's periods, newest first (at most ``limit``), each seed only once every
        block of its period is recorded."""

        def read(db: sqlalchemy.Connection) -> list[SeedPeriod]:
            return periods_of(db, season_id_of(db, ladder), limit=limit)

        return self._read(f"reading the seed periods of ladder {ladder!r}", read)

    def period_of_block(self, ladder: str, index: int) -> SeedPeriod | None:
        """The period block ``index`` deals in (None: a block from before periods, whose deals
        follow from the ladder's public seed, or one not planned yet)."""

        def read(db: sqlalchemy.Connection) -> SeedPeriod | None:
            found = periods_of(db, season_id_of(db, ladder), block=index)
            return found[0] if found else None

        return self._read(f"reading the seed period of ladder {ladder!r}", read)
