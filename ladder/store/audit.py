"""What ``brandeln season verify`` reads of a season beyond the read models: its stored settings,
its blocks and matches as stored (JSON columns as text: a damaged or edited row is something
to report, not a read that fails), and each bot's referee identity and starting rating. The
topic store ``audit`` of :class:`brandeln.ladder.store.database.LadderStore`.
"""

from __future__ import annotations

from dataclasses import dataclass

import sqlalchemy
from sqlalchemy import select

from brandeln.ladder.ratings.trueskill_model import Rating
from brandeln.ladder.store.base import TopicStore
from brandeln.ladder.store.schema import BLOCKS, MATCHES, SEASON_BOTS, SEASONS
from brandeln.ladder.store.season_rows import season_id_of

__all__ = ["AuditBlock", "AuditBot", "AuditMatch", "AuditRows", "AuditStore"]


@dataclass(frozen=True, slots=True)
class AuditBot:
    """A season bot: its kind, its referee id (an external bot's is fixed), and for a ladder
    version the rating it started from (None: a season file's bot, which starts at the
    rating parameters' initial one, or a version whose start was not kept)."""

    name: str
    kind: str
    bot_id: str | None
    version: bool  # a bot version of an always-on ladder
    start: Rating | None


@dataclass(frozen=True, slots=True)
class AuditBlock:
    """A recorded block as stored: its deal seed (text) and seating of rotation 0 (JSON)."""

    index: int
    seed: str
    bots_json: str


@dataclass(frozen=True, slots=True)
class AuditMatch:
    """A recorded match as stored (JSON columns as text)."""

    block: int
    rotation: int
    match_id: str
    suit_permutation: str
    bots_json: str
    balances_json: str
    forfeited_json: str
    deals_played: int


@dataclass(frozen=True, slots=True)
class AuditRows:
    """A season's rows as stored, read in one transaction."""

    settings_json: str
    blocks: tuple[AuditBlock, ...]  # by index
    matches: tuple[AuditMatch, ...]  # by block, rotation
    bots: dict[str, AuditBot]


class AuditStore(TopicStore):
    """The audit's query of the ladder database (``LadderStore.audit``)."""

    def audit_rows(self, season: str) -> AuditRows:
        """The season's settings, blocks, matches and bots as stored."""

        def read(db: sqlalchemy.Connection) -> AuditRows:
            season_id = season_id_of(db, season)
            settings = db.execute(
                select(SEASONS.c.settings_json).where(SEASONS.c.season_id == season_id)
            ).scalar_one()
            blocks = tuple(
                AuditBlock(row.block_index, row.seed, row.bots_json)
                for row in db.execute(
                    select(BLOCKS.c.block_index, BLOCKS.c.seed, BLOCKS.c.bots_json)
                    .where(BLOCKS.c.season_id == season_id)
                    .order_by(BLOCKS.c.block_index)
                )
            )
            matches = tuple(
                AuditMatch(
                    row.block_index,
                    row.rotation,
                    row.match_id,
                    row.suit_permutation,
                    row.bots_json,
                    row.balances_json,
                    row.forfeited_json,
                    row.deals_played,
                )
                for row in db.execute(
                    select(MATCHES)
                    .where(MATCHES.c.season_id == season_id)
                    .order_by(MATCHES.c.block_index, MATCHES.c.rotation)
                )
            )
            bots = SEASON_BOTS.c
            rows = db.execute(
                select(
                    bots.bot,
                    bots.kind,
                    bots.bot_id,
                    bots.family,
                    bots.start_mu,
                    bots.start_sigma,
                ).where(bots.season_id == season_id)
            )
            return AuditRows(
                settings,
                blocks,
                matches,
                {
                    row.bot: AuditBot(
                        row.bot,
                        row.kind,
                        row.bot_id,
                        row.family is not None,
                        None
                        if row.start_mu is None or row.start_sigma is None
                        else Rating(row.start_mu, row.start_sigma),
                    )
                    for row in rows
                },
            )

        return self._read(f"reading the records of season {season!r}", read)
