"""The ladder store's read models: what the leaderboard, the statistics and the match listings read
of a season (its ratings, each bot's totals, the block results and their latency, the rating
history, the matches). The topic store ``reads`` of
:class:`brandeln.ladder.store.database.LadderStore`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import sqlalchemy
from sqlalchemy import select

from brandeln.ladder.ratings.trueskill_model import Rating
from brandeln.ladder.season.duplicate import BotBlockResult, DecisionLatency
from brandeln.ladder.store.base import TopicStore
from brandeln.ladder.store.schema import (
    BOT_TOTALS,
    MATCHES,
    RATING_HISTORY,
    RATINGS,
    RESULTS,
    SEASONS,
)
from brandeln.ladder.store.season_rows import season_id_of

__all__ = ["BotTotals", "RatingRow", "ReadModelStore", "RecordedMatch", "ratings_of"]


@dataclass(frozen=True, slots=True)
class RatingRow:
    """A bot's current rating in a season."""

    bot: str
    rating: Rating
    blocks: int


@dataclass(frozen=True, slots=True)
class BotTotals:
    """A bot's sums over its rated blocks (what the leaderboard shows beside the rating).

    ``cpd_*`` are over the per-block samples chips/deals of the blocks it played deals in."""

    bot: str
    deals: int
    chips: int
    contracts_bid: int
    contracts_made: int
    timeouts: int
    illegal: int
    forfeits: int
    cpd_n: int
    cpd_sum: float
    cpd_sum_sq: float
    strikes: int = 0
    lat_decisions: int = 0  # the latency sums (see brandeln.ladder.store.schema.BOT_TOTALS)
    lat_p50_sum: int = 0
    lat_p95_sum: int = 0
    lat_max_ms: int = 0

    @property
    def latency(self) -> DecisionLatency:
        """The decision latency over the rated blocks, as :func:`combine_latency` gives it."""
        if not self.lat_decisions:
            return DecisionLatency()
        return DecisionLatency(
            self.lat_decisions,
            round(self.lat_p50_sum / self.lat_decisions),
            round(self.lat_p95_sum / self.lat_decisions),
            self.lat_max_ms,
        )


@dataclass(frozen=True, slots=True)
class RecordedMatch:
    """A match of a finished block."""

    block_index: int
    rotation: int
    match_id: str
    suit_permutation: str
    bots: tuple[str, ...]
    balances: tuple[int, ...]
    deals_played: int


class ReadModelStore(TopicStore):
    """The read models' queries of the ladder database (``LadderStore.reads``)."""

    def ratings(self, season: str) -> list[RatingRow]:
        """The season's current ratings, every bot of the season included."""
        return self._read(
            f"reading the ratings of season {season!r}",
            lambda db: ratings_of(db, season_id_of(db, season)),
        )

    def bot_totals(self, season: str) -> dict[str, BotTotals]:
        """Each bot's sums over the season's rated blocks, by bot: one row per bot, however
        many blocks (the leaderboard's columns)."""

        def read(db: sqlalchemy.Connection) -> dict[str, BotTotals]:
            season_id = season_id_of(db, season)
            rows = db.execute(
                select(*(BOT_TOTALS.c[name] for name in BotTotals.__slots__)).where(
                    BOT_TOTALS.c.season_id == season_id
                )
            )
            return {row.bot: BotTotals(*row) for row in rows}

        return self._read(f"reading the totals of season {season!r}", read)

    def results(self, season: str, *, rated_only: bool = False) -> list[tuple[int, BotBlockResult]]:
        """Every (block index, bot result) of the season, by block then bot.

        ``rated_only`` leaves out finished blocks still waiting for an earlier block (so the
        statistics and the ratings describe the same blocks).
        """

        def read(db: sqlalchemy.Connection) -> list[tuple[int, BotBlockResult]]:
            season_id = season_id_of(db, season)
            query = select(RESULTS).where(RESULTS.c.season_id == season_id)
            if rated_only:
                next_to_rate = (
                    select(SEASONS.c.next_to_rate)
                    .where(SEASONS.c.season_id == season_id)
                    .scalar_subquery()
                )
                query = query.where(RESULTS.c.block_index < next_to_rate)
            rows = db.execute(query.order_by(RESULTS.c.block_index, RESULTS.c.bot))
            return [(row.block_index, _bot_result(row)) for row in rows]

        return self._read(f"reading the results of season {season!r}", read)

    def latency(
        self, season: str, *, rated_only: bool = False
    ) -> dict[tuple[int, str], DecisionLatency]:
        """Each bot's decision latency by (block index, bot), where it was reported (blocks
        recorded before latency was kept have none). ``rated_only`` as in :meth:`results`."""
        return {
            (block, result.bot): result.latency
            for block, result in self.results(season, rated_only=rated_only)
            if result.latency.decisions
        }

    def rating_history(self, season: str) -> list[tuple[int, str, Rating]]:
        """Every (block index, bot, rating after that block), in block order."""

        def read(db: sqlalchemy.Connection) -> list[tuple[int, str, Rating]]:
            season_id = season_id_of(db, season)
            history = RATING_HISTORY.c
            rows = db.execute(
                select(history.block_index, history.bot, history.mu, history.sigma)
                .where(history.season_id == season_id)
                .order_by(history.block_index, history.bot)
            )
            return [(row.block_index, row.bot, Rating(row.mu, row.sigma)) for row in rows]

        return self._read(f"reading the rating history of season {season!r}", read)

    def matches(self, season: str) -> list[RecordedMatch]:
        """The matches of the season's finished blocks, by block and rotation."""

        def read(db: sqlalchemy.Connection) -> list[RecordedMatch]:
            season_id = season_id_of(db, season)
            rows = db.execute(
                select(MATCHES)
                .where(MATCHES.c.season_id == season_id)
                .order_by(MATCHES.c.block_index, MATCHES.c.rotation)
            )
            return [_recorded_match(row) for row in rows]

        return self._read(f"reading the matches of season {season!r}", read)

    def last_match(self, season: str) -> RecordedMatch | None:
        """The last match of the season's last recorded block (an index read, not a scan)."""

        def read(db: sqlalchemy.Connection) -> RecordedMatch | None:
            season_id = season_id_of(db, season)
            row = db.execute(
                select(MATCHES)
                .where(MATCHES.c.season_id == season_id)
                .order_by(MATCHES.c.block_index.desc(), MATCHES.c.rotation.desc())
                .limit(1)
            ).first()
            return None if row is None else _recorded_match(row)

        return self._read(f"reading the matches of season {season!r}", read)


def ratings_of(db: sqlalchemy.Connection, season_id: int) -> list[RatingRow]:
    """The season's current ratings, by bot (inside a transaction: a block's record reads them
    too, under the season's lock)."""
    rows = db.execute(
        select(RATINGS.c.bot, RATINGS.c.mu, RATINGS.c.sigma, RATINGS.c.blocks)
        .where(RATINGS.c.season_id == season_id)
        .order_by(RATINGS.c.bot)
    )
    return [RatingRow(row.bot, Rating(row.mu, row.sigma), row.blocks) for row in rows]


def _bot_result(row: sqlalchemy.Row[Any]) -> BotBlockResult:
    return BotBlockResult(
        bot=row.bot,
        rank=row.rank,
        chips=row.chips,
        deals=row.deals,
        forfeited=bool(row.forfeited),
        timeouts=row.timeouts,
        illegal=row.illegal,
        strikes=row.strikes,
        contracts_bid=row.contracts_bid,
        contracts_made=row.contracts_made,
        latency=DecisionLatency(row.lat_decisions, row.lat_p50_ms, row.lat_p95_ms, row.lat_max_ms),
    )


def _recorded_match(row: sqlalchemy.Row[Any]) -> RecordedMatch:
    return RecordedMatch(
        block_index=row.block_index,
        rotation=row.rotation,
        match_id=row.match_id,
        suit_permutation=row.suit_permutation,
        bots=tuple(json.loads(row.bots_json)),
        balances=tuple(json.loads(row.balances_json)),
        deals_played=row.deals_played,
    )
