"""The always-on ladder in the ladder store: a ladder is a season (its blocks, results and ratings
are a season's, so every read of a season shows it) whose bots are versions that come and go, and
whose blocks are planned one at a time (:mod:`brandeln.ladder.living.ladder`). The topic store
``ladders`` of :class:`brandeln.ladder.store.database.LadderStore`.

- A bot version is a season bot named ``family@version`` with its own referee identity; a new
  version of a family retires the one before and starts from its rating, widened, so a new
  build of a strong bot need not climb from nothing.
- A block is planned before it is played (:mod:`brandeln.ladder.store.planned`).
- A challenge waits in a queue the ladder serves ahead of matchmaking
  (:mod:`brandeln.ladder.store.challenges`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import sqlalchemy
from sqlalchemy import select, update

from brandeln.ladder.bots.version_commands import VersionCommand
from brandeln.ladder.errors import LadderError, SeasonMismatchError
from brandeln.ladder.ratings.trueskill_model import Rating
from brandeln.ladder.store.base import TopicStore, now_ms
from brandeln.ladder.store.schema import (
    BOT_TOTALS,
    RATINGS,
    SEASON_BOTS,
    SEASONS,
    VersionStatus,
)
from brandeln.ladder.store.season_rows import (
    SeasonInfo,
    SeasonStatus,
    lock_season,
    season_id_of,
    season_named,
)

__all__ = [
    "LadderVersion",
    "LivingLadderStore",
    "VersionError",
]


LADDER_KIND = "ladder"  # settings_json's "kind" of a season that ensure_ladder made


class VersionError(LadderError):
    """A version that cannot be added or retired (taken, unknown, not a ladder)."""


@dataclass(frozen=True, slots=True)
class LadderVersion:
    """A bot version of a ladder, with its rating now."""

    name: str  # family@version: the season bot name its results and rating go under
    family: str
    version: str
    bot_id: str  # its referee identity
    status: VersionStatus
    created_at: int
    rating: Rating
    blocks: int  # rated blocks played
    command: VersionCommand | None = None  # None: it connects by itself

    @property
    def active(self) -> bool:
        return self.status is VersionStatus.ACTIVE


class LivingLadderStore(TopicStore):
    """The always-on ladder's queries of the ladder database (``LadderStore.ladders``)."""

    def ensure_ladder(
        self, name: str, settings: dict[str, Any], players: int, run: dict[str, Any]
    ) -> SeasonInfo:
        """Create the ladder ``name`` (a season of kind ``ladder``), or check that the stored
        one has these ``settings`` (the ruleset, deals, seed and rating parameters decide its
        blocks and ratings: SeasonMismatchError names what changed); ``run`` holds what may
        change between runs (the limit on challenges), kept for the other commands to read."""
        wanted = {"kind": LADDER_KIND, **settings}

        def ensure(db: sqlalchemy.Connection) -> None:
            row = db.execute(
                select(SEASONS.c.season_id, SEASONS.c.settings_json).where(SEASONS.c.name == name)
            ).first()
            now = now_ms()
            if row is None:
                db.execute(
                    SEASONS.insert().values(
                        name=name,
                        settings_json=json.dumps({**wanted, "run": run}, sort_keys=True),
                        ruleset=settings["ruleset"],
                        players=players,
                        blocks_planned=0,
                        created_at=now,
                        updated_at=now,
                    )
                )
                return
            stored = json.loads(row.settings_json)
            if stored.get("kind") != LADDER_KIND:
                raise SeasonMismatchError(
                    f"{name!r} is a season played from a season file, not an always-on ladder:"
                    " give the ladder another name (--name)"
                )
            different = [key for key in wanted if stored.get(key) != wanted[key]]
            if different:
                raise SeasonMismatchError(
                    f"ladder {name!r} was started with different settings; changed: "
                    f"{', '.join(different)}. Keep them to go on, or start a ladder of another name"
                )
            db.execute(
                update(SEASONS)
                .where(SEASONS.c.season_id == row.season_id)
                .values(
                    updated_at=now,
                    status=SeasonStatus.RUNNING.value,
                    status_detail="",
                    settings_json=json.dumps({**stored, "run": run}, sort_keys=True),
                )
            )

        self._write(f"saving ladder {name!r}", ensure)
        return self._read(f"reading ladder {name!r}", lambda db: season_named(db, name))

    def ladder_names(self) -> set[str]:
        """The names of the store's always-on ladders, in one query (a page that lists every
        season asks as much however many there are)."""

        def read(db: sqlalchemy.Connection) -> set[str]:
            rows = db.execute(select(SEASONS.c.name, SEASONS.c.settings_json))
            return {row.name for row in rows if _kind(row.settings_json) == LADDER_KIND}

        return self._read("listing the always-on ladders", read)

    def ladder_settings(self, name: str) -> dict[str, Any]:
        """The ladder's stored settings (``run``: those of its last run); LadderError when
        ``name`` is no always-on ladder."""

        def read(db: sqlalchemy.Connection) -> dict[str, Any]:
            row = db.execute(select(SEASONS.c.settings_json).where(SEASONS.c.name == name)).first()
            settings: dict[str, Any] = {} if row is None else json.loads(row.settings_json)
            if settings.get("kind") != LADDER_KIND:
                raise LadderError(
                    f"no always-on ladder named {name!r}: start it with brandeln ladder serve"
                    + (f" --name {name}" if name != "ladder" else "")
                )
            return settings

        return self._read(f"reading ladder {name!r}", read)

    # -- versions ---------------------------------------------------------------------------

    def add_version(
        self,
        ladder: str,
        family: str,
        version: str,
        bot_id: str,
        start: Rating,
        widen: float,
        command: VersionCommand | None = None,
    ) -> LadderVersion:
        """Add ``family@version`` (referee identity ``bot_id``) as the family's active
        version: the one before it is retired, and the new one starts from its rating with the
        uncertainty widened by ``widen`` (in quadrature, no wider than ``start``'s), or from
        ``start`` for a family's first version. The newest version before it counts, retired
        or not: a rebuild after a retirement is still the same family's bot. VersionError when
        that version is there already. ``command``: the ladder launches it itself."""
        name = f"{family}@{version}"

        def add(db: sqlalchemy.Connection) -> None:
            season_id, _ = lock_season(db, ladder)
            bots = SEASON_BOTS.c
            taken = db.execute(
                select(bots.bot).where(bots.season_id == season_id, bots.bot == name)
            ).first()
            if taken is not None:
                raise VersionError(f"{name} is in ladder {ladder!r} already")
            before = db.execute(
                select(RATINGS.c.mu, RATINGS.c.sigma)
                .join(
                    SEASON_BOTS,
                    (SEASON_BOTS.c.season_id == RATINGS.c.season_id)
                    & (SEASON_BOTS.c.bot == RATINGS.c.bot),
                )
                .where(RATINGS.c.season_id == season_id, bots.family == family)
                .order_by(bots.created_at.desc(), bots.bot.desc())
                .limit(1)
            ).first()
            rating = start if before is None else _widen(Rating(before.mu, before.sigma), widen)
            rating = Rating(rating.mu, min(rating.sigma, start.sigma))
            db.execute(
                update(SEASON_BOTS)
                .where(bots.season_id == season_id, bots.family == family)
                .values(status=VersionStatus.RETIRED.value)
            )
            db.execute(
                SEASON_BOTS.insert().values(
                    season_id=season_id,
                    bot=name,
                    kind="external",
                    bot_id=bot_id,
                    family=family,
                    version=version,
                    status=VersionStatus.ACTIVE.value,
                    created_at=now_ms(),
                    start_mu=rating.mu,  # kept: its ratings recomputed start here
                    start_sigma=rating.sigma,
                    command_json=None if command is None else command.to_json(),
                )
            )
            db.execute(
                RATINGS.insert().values(
                    season_id=season_id, bot=name, mu=rating.mu, sigma=rating.sigma, blocks=0
                )
            )
            db.execute(BOT_TOTALS.insert().values(season_id=season_id, bot=name))

        self._write(f"adding version {name} to ladder {ladder!r}", add)
        return next(v for v in self.versions(ladder) if v.name == name)

    def retire_version(self, ladder: str, name: str) -> None:
        """Retire ``name``: matchmaking leaves it out; its history stays."""

        def retire(db: sqlalchemy.Connection) -> None:
            season_id = season_id_of(db, ladder)
            changed = db.execute(
                update(SEASON_BOTS)
                .where(
                    SEASON_BOTS.c.season_id == season_id,
                    SEASON_BOTS.c.bot == name,
                    SEASON_BOTS.c.family.is_not(None),
                )
                .values(status=VersionStatus.RETIRED.value)
            ).rowcount
            if changed != 1:
                raise VersionError(f"no version {name!r} in ladder {ladder!r}")

        self._write(f"retiring {name} in ladder {ladder!r}", retire)

    def versions(self, ladder: str) -> list[LadderVersion]:
        """Every version of the ladder, oldest first, with its rating."""

        def read(db: sqlalchemy.Connection) -> list[LadderVersion]:
            season_id = season_id_of(db, ladder)
            bots = SEASON_BOTS.c
            rows = db.execute(
                select(
                    bots.bot,
                    bots.family,
                    bots.version,
                    bots.bot_id,
                    bots.status,
                    bots.created_at,
                    RATINGS.c.mu,
                    RATINGS.c.sigma,
                    RATINGS.c.blocks,
                    bots.command_json,
                )
                .join(
                    RATINGS,
                    (RATINGS.c.season_id == bots.season_id) & (RATINGS.c.bot == bots.bot),
                )
                .where(bots.season_id == season_id, bots.family.is_not(None))
                .order_by(bots.created_at, bots.bot)
            )
            return [
                LadderVersion(
                    row.bot,
                    row.family,
                    row.version,
                    row.bot_id or "",
                    VersionStatus(row.status),
                    row.created_at or 0,
                    Rating(row.mu, row.sigma),
                    row.blocks,
                    None
                    if row.command_json is None
                    else VersionCommand.from_json(row.command_json),
                )
                for row in rows
            ]

        return self._read(f"reading the versions of ladder {ladder!r}", read)


def _kind(settings_json: str | None) -> object:
    """A season's kind (None for a season played from a season file)."""
    try:
        settings = json.loads(settings_json or "{}")
    except ValueError:
        return None  # no ladder's (ensure_ladder writes JSON): listed as a season
    return settings.get("kind") if isinstance(settings, dict) else None


def _widen(rating: Rating, widen: float) -> Rating:
    return Rating(rating.mu, (rating.sigma**2 + widen**2) ** 0.5)
