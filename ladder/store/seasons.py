"""Seasons in the ladder store: a season created from its file or checked against it (its settings
decide its deals, schedule and ratings, so they must not change), listed, read, and how its last
run ended. The topic store ``seasons`` of :class:`brandeln.ladder.store.database.LadderStore`.
"""

from __future__ import annotations

import json
from typing import Any

import sqlalchemy
from sqlalchemy import select, update

from brandeln.ladder.errors import SeasonMismatchError, UnknownSeasonError
from brandeln.ladder.ratings.trueskill_model import Rating
from brandeln.ladder.season.config import ExternalBot, SeasonConfig
from brandeln.ladder.store.base import TopicStore, now_ms
from brandeln.ladder.store.claims import add_claims
from brandeln.ladder.store.commitments import check_season_commitment, new_season_commitment
from brandeln.ladder.store.rerun import planned_blocks_kept
from brandeln.ladder.store.schema import BOT_TOTALS, RATINGS, SEASON_BOTS, SEASONS
from brandeln.ladder.store.season_rows import SeasonInfo, SeasonStatus, season_info, season_named

__all__ = ["SeasonStore", "season_settings"]


def season_settings(config: SeasonConfig) -> dict[str, Any]:
    """The settings a stored season must keep: they decide its deals, schedule and ratings.

    ``blocks`` may grow (the schedule is prefix-stable; not after a final rerun,
    :mod:`brandeln.ladder.store.rerun`), and the time control, concurrency and
    bot commands may change between runs (a fixed path, a faster machine).
    """
    return {
        "ruleset": config.ruleset,
        "options": dict(sorted(config.options.items())),
        "seed": config.seed,
        "deals_per_match": config.deals_per_match,
        "players": config.players,
        "bots": [
            {"name": bot.name, "bot_id": bot.bot_id}
            if isinstance(bot, ExternalBot)
            else {"name": bot.name, "command": True}
            for bot in config.bots
        ],
        "rating": {
            "mu": config.rating.mu,
            "sigma": config.rating.sigma,
            "beta": config.rating.beta,
            "tau": config.rating.tau,
            "draw_probability": config.rating.draw_probability,
        },
    }


class SeasonStore(TopicStore):
    """The seasons' queries of the ladder database (``LadderStore.seasons``)."""

    def ensure_season(self, config: SeasonConfig, initial: Rating) -> SeasonInfo:
        """Create the season of ``config``, or check that the stored one has its settings.

        Raises :class:`SeasonMismatchError` naming the settings that differ: a season's deals,
        schedule and ratings depend on them, so changing them needs a new season name.
        """
        settings = season_settings(config)

        def ensure(db: sqlalchemy.Connection) -> None:
            # Two runners starting the same new season at once: the second waits here and
            # then finds the season made (SQLite's BEGIN IMMEDIATE serialises them already).
            _advisory_lock(db, f"brandeln-season-{config.name}")
            row = db.execute(
                select(SEASONS.c.season_id, SEASONS.c.settings_json).where(
                    SEASONS.c.name == config.name
                )
            ).first()
            now = now_ms()
            if row is None:
                season_id = db.execute(
                    SEASONS.insert()
                    .values(
                        name=config.name,
                        settings_json=json.dumps(settings, sort_keys=True),
                        ruleset=config.ruleset,
                        players=config.players,
                        blocks_planned=config.blocks,
                        created_at=now,
                        updated_at=now,
                        **new_season_commitment(config.name, settings, config.seed),
                    )
                    .returning(SEASONS.c.season_id)
                ).scalar_one()
                db.execute(
                    SEASON_BOTS.insert(),
                    [
                        {
                            "season_id": season_id,
                            "bot": bot.name,
                            "kind": "external" if isinstance(bot, ExternalBot) else "command",
                            "bot_id": bot.bot_id if isinstance(bot, ExternalBot) else None,
                        }
                        for bot in config.bots
                    ],
                )
                db.execute(
                    RATINGS.insert(),
                    [
                        {
                            "season_id": season_id,
                            "bot": bot.name,
                            "mu": initial.mu,
                            "sigma": initial.sigma,
                            "blocks": 0,
                        }
                        for bot in config.bots
                    ],
                )
                db.execute(
                    BOT_TOTALS.insert(),
                    [{"season_id": season_id, "bot": bot.name} for bot in config.bots],
                )
            else:
                season_id = row.season_id
                stored = json.loads(row.settings_json)
                different = [key for key in settings if stored.get(key) != settings[key]]
                if different:
                    where = f" ({config.source})" if config.source else ""
                    raise SeasonMismatchError(
                        f"season {config.name!r} was started with different settings; "
                        f"changed{where}: {', '.join(different)}. Keep the stored settings to "
                        "resume it, or give the season a new name"
                    )
                check_season_commitment(db, season_id, config, settings, stored)
                # A season with a final rerun keeps its planned count, the rerun's included.
                kept = planned_blocks_kept(stored, config.name, config.blocks, config.source)
                db.execute(
                    update(SEASONS)
                    .where(SEASONS.c.season_id == season_id)
                    .values(
                        blocks_planned=SEASONS.c.blocks_planned if kept else config.blocks,
                        updated_at=now,
                        status=SeasonStatus.RUNNING.value,
                        status_detail="",
                    )
                )
            add_claims(db, season_id, config.blocks)

        self._write(f"saving season {config.name!r}", ensure)
        return self.season(config.name)

    def season_names(self) -> list[str]:
        """Every stored season's name, oldest first."""
        return self._read(
            "listing seasons",
            lambda db: list(
                db.execute(
                    select(SEASONS.c.name).order_by(SEASONS.c.created_at, SEASONS.c.season_id)
                ).scalars()
            ),
        )

    def seasons(self) -> list[SeasonInfo]:
        """Every stored season, oldest first, in one query (a listing asks this, not
        :meth:`season` once a name)."""
        return self._read(
            "listing seasons",
            lambda db: [
                season_info(row)
                for row in db.execute(
                    select(SEASONS).order_by(SEASONS.c.created_at, SEASONS.c.season_id)
                )
            ],
        )

    def season(self, name: str) -> SeasonInfo:
        """The season named ``name``; raises :class:`UnknownSeasonError` listing the known."""
        return self._read(f"reading season {name!r}", lambda db: season_named(db, name))

    def set_season_status(self, name: str, status: SeasonStatus, detail: str = "") -> None:
        """Record how the season's run ended (``detail``: why it failed)."""

        def store(db: sqlalchemy.Connection) -> None:
            changed = db.execute(
                update(SEASONS)
                .where(SEASONS.c.name == name)
                .values(status=status.value, status_detail=detail, updated_at=now_ms())
            ).rowcount
            if changed != 1:
                raise UnknownSeasonError(f"no season named {name!r}")

        self._write(f"saving the status of season {name!r}", store)

    def latest_season(self) -> SeasonInfo | None:
        """The season run most recently, or None when there is none."""

        def latest(db: sqlalchemy.Connection) -> SeasonInfo | None:
            name = db.execute(
                select(SEASONS.c.name)
                .order_by(SEASONS.c.updated_at.desc(), SEASONS.c.season_id.desc())
                .limit(1)
            ).scalar()
            return None if name is None else season_named(db, name)

        return self._read("finding the latest season", latest)


def _advisory_lock(db: sqlalchemy.Connection, key: str) -> None:
    """On PostgreSQL, a lock on ``key`` until the transaction ends (for rows not there yet)."""
    if db.dialect.name == "postgresql":
        db.execute(sqlalchemy.text("SELECT pg_advisory_xact_lock(hashtext(:key))"), {"key": key})
