"""A season's blocks in the ladder store, claimed and then recorded: the topic store ``blocks`` of
:class:`brandeln.ladder.store.database.LadderStore`.

A block is claimed by the runner that plays it, in a transaction before it is played (``FOR UPDATE
SKIP LOCKED`` on PostgreSQL, ``BEGIN IMMEDIATE`` on SQLite), kept alive by heartbeats, given back
when a runner stops, and taken over from a runner that is dead or silent
(:mod:`brandeln.ladder.season.claims`; the claim rows are made by
:mod:`brandeln.ladder.store.claims`).

A finished block is written in **one transaction** with the rating updates it unlocks: the block's
matches and results, its claim marked done, and the ratings, history and bot totals of the blocks
rated now, under the season's row lock so that ratings move in block order whoever records (which
blocks are rated is decided by :mod:`brandeln.ladder.ratings.order`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import sqlalchemy
from sqlalchemy import and_, bindparam, case, select, update

from brandeln.ladder.errors import StorageError
from brandeln.ladder.ratings.trueskill_model import Rating
from brandeln.ladder.season.claims import STALE_CLAIM_MS, runner_alive
from brandeln.ladder.season.duplicate import BlockPlan, BotBlockResult, MatchOutcome
from brandeln.ladder.store.base import TopicStore, now_ms
from brandeln.ladder.store.reads import ratings_of
from brandeln.ladder.store.schema import (
    BLOCK_CLAIMS,
    BLOCKS,
    BOT_TOTALS,
    MATCHES,
    PLANNED_BLOCKS,
    RATING_HISTORY,
    RATINGS,
    RESULTS,
    SEASONS,
    ClaimState,
)
from brandeln.ladder.store.season_rows import lock_season, season_id_of, unknown_season

__all__ = ["BlockStore", "RateUnlocked", "RatedBlock"]

# (next block to rate, the unrated finished blocks' rankings, every bot's rating) ->
# the blocks rated now, in order (brandeln.ladder.ratings.order decides).
RateUnlocked = Callable[
    [int, Mapping[int, Mapping[str, int]], Mapping[str, Rating]], Sequence["RatedBlock"]
]


@dataclass(frozen=True, slots=True)
class RatedBlock:
    """One block's rating update, as the store keeps it: each of its bots' ratings after it
    (computed in block order by :mod:`brandeln.ladder.ratings.order`)."""

    index: int
    ratings: Mapping[str, Rating]


class BlockStore(TopicStore):
    """The block claims and the finished blocks' writes and reads of the ladder database
    (``LadderStore.blocks``)."""

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

    def finished_blocks(self, season: str) -> set[int]:
        """The indexes of the season's recorded blocks."""

        def read(db: sqlalchemy.Connection) -> set[int]:
            season_id = season_id_of(db, season)
            return set(
                db.execute(
                    select(BLOCKS.c.block_index).where(BLOCKS.c.season_id == season_id)
                ).scalars()
            )

        return self._read(f"reading the blocks of season {season!r}", read)

    def record_and_rate(
        self,
        season: str,
        plan: BlockPlan,
        outcomes: Sequence[MatchOutcome],
        results: Mapping[str, BotBlockResult],
        rate_unlocked: RateUnlocked,
    ) -> list[int]:
        """Store a finished block and the rating updates it unlocks, in one transaction that
        holds the season's row lock: whoever records, ratings move in block order.

        ``rate_unlocked`` (see :func:`brandeln.ladder.ratings.order.record_and_rate`) is given where
        the rating stands, the unrated blocks' rankings (this one's included) and the ratings,
        and returns the blocks rated now. Returns their indexes. The same block recorded
        again with the same matches is a no-op (``[]``); with other matches an error.
        """

        def record(db: sqlalchemy.Connection) -> list[int]:
            season_id, next_to_rate = lock_season(db, season)
            if _already_recorded(db, season, season_id, plan, outcomes):
                return []
            _insert_block(db, season_id, plan, outcomes, results)
            rankings = _unrated_rankings(db, season_id, next_to_rate)
            before = {row.bot: row.rating for row in ratings_of(db, season_id)}
            rated = list(rate_unlocked(next_to_rate, rankings, before))
            _store_ratings(db, season_id, rated)
            return [block.index for block in rated]

        return self._write(f"recording block {plan.index} of season {season!r}", record)

    def record_block(
        self,
        season: str,
        plan: BlockPlan,
        outcomes: Sequence[MatchOutcome],
        results: Mapping[str, BotBlockResult],
        rated: Sequence[RatedBlock],
        *,
        next_to_rate: int,
    ) -> None:
        """Store a finished block and the rating updates ``rated`` (in the order given), in one
        transaction. :meth:`record_and_rate` computes them under the season's lock instead.

        ``next_to_rate`` is where the rating stood when ``rated`` was computed: if another
        writer moved it since, nothing is stored (:class:`StorageError`).
        """

        def record(db: sqlalchemy.Connection) -> None:
            season_id, stored_next = lock_season(db, season)
            if stored_next != next_to_rate:
                raise StorageError(
                    f"season {season!r}: ratings stand at block {stored_next}, not "
                    f"{next_to_rate}: another run recorded blocks meanwhile"
                )
            if _already_recorded(db, season, season_id, plan, outcomes):
                return
            _insert_block(db, season_id, plan, outcomes, results)
            _store_ratings(db, season_id, rated)

        self._write(f"recording block {plan.index} of season {season!r}", record)

    def next_to_rate(self, season: str) -> int:
        """The first block not rated yet (every block below it is)."""

        def read(db: sqlalchemy.Connection) -> int:
            season_id = season_id_of(db, season)
            return int(
                db.execute(
                    select(SEASONS.c.next_to_rate).where(SEASONS.c.season_id == season_id)
                ).scalar_one()
            )

        return self._read(f"reading season {season!r}", read)

    def unrated_rankings(self, season: str) -> dict[int, dict[str, int]]:
        """The rankings (rank by bot) of the finished blocks not rated yet, by block index."""

        def read(db: sqlalchemy.Connection) -> dict[int, dict[str, int]]:
            season_id = season_id_of(db, season)
            next_to_rate = db.execute(
                select(SEASONS.c.next_to_rate).where(SEASONS.c.season_id == season_id)
            ).scalar_one()
            return _unrated_rankings(db, season_id, next_to_rate)

        return self._read(f"reading season {season!r}", read)


def _match_rows(
    season_id: int, plan: BlockPlan, outcomes: Sequence[MatchOutcome]
) -> list[dict[str, Any]]:
    return [
        {
            "season_id": season_id,
            "block_index": plan.index,
            "rotation": outcome.plan.rotation,
            "match_id": outcome.match_id,
            "suit_permutation": outcome.plan.suit_permutation,
            "bots_json": json.dumps(outcome.plan.bots),
            "balances_json": json.dumps(outcome.balances),
            "forfeited_json": json.dumps(sorted(outcome.forfeited)),
            "deals_played": outcome.deals_played,
        }
        for outcome in outcomes
    ]


def _already_recorded(
    db: sqlalchemy.Connection,
    season: str,
    season_id: int,
    plan: BlockPlan,
    outcomes: Sequence[MatchOutcome],
) -> bool:
    """True when the block is stored with these very matches (a retried write whose commit
    landed: nothing to do); raises when it is stored with others."""
    stored = db.execute(
        select(MATCHES)
        .where(MATCHES.c.season_id == season_id, MATCHES.c.block_index == plan.index)
        .order_by(MATCHES.c.rotation)
    ).all()
    block = db.execute(
        select(BLOCKS.c.block_index).where(
            BLOCKS.c.season_id == season_id, BLOCKS.c.block_index == plan.index
        )
    ).first()
    if block is None and not stored:
        return False
    wanted = sorted(_match_rows(season_id, plan, outcomes), key=lambda row: row["rotation"])
    if [dict(row._mapping) for row in stored] == wanted:
        return True
    raise StorageError(
        f"season {season!r}: block {plan.index} cannot be recorded: it was already recorded "
        "with other matches (by another run?)"
    )


def _insert_block(
    db: sqlalchemy.Connection,
    season_id: int,
    plan: BlockPlan,
    outcomes: Sequence[MatchOutcome],
    results: Mapping[str, BotBlockResult],
) -> None:
    now = now_ms()
    db.execute(
        BLOCKS.insert().values(
            season_id=season_id,
            block_index=plan.index,
            seed=str(plan.seed),
            bots_json=json.dumps(plan.bots),
            finished_at=now,
        )
    )
    db.execute(MATCHES.insert(), _match_rows(season_id, plan, outcomes))
    db.execute(
        RESULTS.insert(),
        [
            {
                "season_id": season_id,
                "block_index": plan.index,
                "bot": r.bot,
                "rank": r.rank,
                "chips": r.chips,
                "deals": r.deals,
                "forfeited": int(r.forfeited),
                "timeouts": r.timeouts,
                "illegal": r.illegal,
                "strikes": r.strikes,
                "contracts_bid": r.contracts_bid,
                "contracts_made": r.contracts_made,
                "lat_decisions": r.latency.decisions,
                "lat_p50_ms": r.latency.p50_ms,
                "lat_p95_ms": r.latency.p95_ms,
                "lat_max_ms": r.latency.max_ms,
            }
            for r in results.values()
        ],
    )
    db.execute(
        update(BLOCK_CLAIMS)
        .where(BLOCK_CLAIMS.c.season_id == season_id, BLOCK_CLAIMS.c.block_index == plan.index)
        .values(state=ClaimState.DONE.value, heartbeat_at=now)
    )
    db.execute(
        update(SEASONS)
        .where(SEASONS.c.season_id == season_id)
        .values(updated_at=now, blocks_recorded=SEASONS.c.blocks_recorded + 1)
    )


def _unrated_rankings(
    db: sqlalchemy.Connection, season_id: int, next_to_rate: int
) -> dict[int, dict[str, int]]:
    """The recorded blocks from ``next_to_rate`` on, each with its ranking; a block played
    unrated (an always-on ladder's challenge) with an empty one: its place in the order is
    kept, and it moves no rating."""
    rankings: dict[int, dict[str, int]] = {}
    rows = db.execute(
        select(RESULTS.c.block_index, RESULTS.c.bot, RESULTS.c.rank)
        .where(RESULTS.c.season_id == season_id, RESULTS.c.block_index >= next_to_rate)
        .order_by(RESULTS.c.block_index, RESULTS.c.bot)
    )
    for row in rows:
        rankings.setdefault(row.block_index, {})[row.bot] = row.rank
    unrated = db.execute(
        select(PLANNED_BLOCKS.c.block_index).where(
            PLANNED_BLOCKS.c.season_id == season_id,
            PLANNED_BLOCKS.c.block_index >= next_to_rate,
            PLANNED_BLOCKS.c.rated == 0,
        )
    ).scalars()
    for index in unrated:
        if index in rankings:
            rankings[index] = {}
    return rankings


# Built once: a block's rating and totals updates are a few executemany calls of these (an
# expression built per row costs more than the database's work).
_RATE_BOT: Final = (
    update(RATINGS)
    .where(RATINGS.c.season_id == bindparam("s"), RATINGS.c.bot == bindparam("b"))
    .values(mu=bindparam("mu"), sigma=bindparam("sigma"), blocks=RATINGS.c.blocks + 1)
)
_TOTALS_BY_DEAL: Final = (
    "deals",
    "chips",
    "contracts_bid",
    "contracts_made",
    "timeouts",
    "illegal",
)
_ADD_TO_TOTALS: Final = (
    update(BOT_TOTALS)
    .where(BOT_TOTALS.c.season_id == bindparam("s"), BOT_TOTALS.c.bot == bindparam("b"))
    .values(
        **{name: BOT_TOTALS.c[name] + bindparam(f"add_{name}") for name in _TOTALS_BY_DEAL},
        forfeits=BOT_TOTALS.c.forfeits + bindparam("add_forfeits"),
        cpd_n=BOT_TOTALS.c.cpd_n + bindparam("add_cpd_n"),
        cpd_sum=BOT_TOTALS.c.cpd_sum + bindparam("add_cpd_sum"),
        cpd_sum_sq=BOT_TOTALS.c.cpd_sum_sq + bindparam("add_cpd_sum_sq"),
        strikes=BOT_TOTALS.c.strikes + bindparam("add_strikes"),
        lat_decisions=BOT_TOTALS.c.lat_decisions + bindparam("add_lat_decisions"),
        lat_p50_sum=BOT_TOTALS.c.lat_p50_sum + bindparam("add_lat_p50_sum"),
        lat_p95_sum=BOT_TOTALS.c.lat_p95_sum + bindparam("add_lat_p95_sum"),
        # max() of two values is spelt differently by SQLite and PostgreSQL: a CASE is not.
        lat_max_ms=case(
            (BOT_TOTALS.c.lat_max_ms < bindparam("new_lat_max"), bindparam("new_lat_max")),
            else_=BOT_TOTALS.c.lat_max_ms,
        ),
    )
)


def _store_ratings(db: sqlalchemy.Connection, season_id: int, rated: Sequence[RatedBlock]) -> None:
    """The rated blocks' ratings, history and the bots' totals, and where the rating stands (a
    block played unrated moves nothing but that)."""
    for block in rated:
        if not block.ratings:
            continue
        db.execute(
            _RATE_BOT,
            [
                {"s": season_id, "b": bot, "mu": rating.mu, "sigma": rating.sigma}
                for bot, rating in block.ratings.items()
            ],
        )
        db.execute(
            RATING_HISTORY.insert(),
            [
                {
                    "season_id": season_id,
                    "block_index": block.index,
                    "bot": bot,
                    "mu": rating.mu,
                    "sigma": rating.sigma,
                }
                for bot, rating in block.ratings.items()
            ],
        )
        _add_to_totals(db, season_id, block.index)
    if rated:
        db.execute(
            update(SEASONS)
            .where(SEASONS.c.season_id == season_id)
            .values(next_to_rate=rated[-1].index + 1)
        )


def _add_to_totals(db: sqlalchemy.Connection, season_id: int, block_index: int) -> None:
    rows = db.execute(
        select(RESULTS).where(
            RESULTS.c.season_id == season_id, RESULTS.c.block_index == block_index
        )
    ).all()
    have = set(
        db.execute(select(BOT_TOTALS.c.bot).where(BOT_TOTALS.c.season_id == season_id)).scalars()
    )
    missing = [row.bot for row in rows if row.bot not in have]
    if missing:  # a bot the season never listed: its row starts here
        db.execute(BOT_TOTALS.insert(), [{"season_id": season_id, "bot": bot} for bot in missing])
    updates = []
    for row in rows:
        sample = row.chips / row.deals if row.deals else None
        updates.append(
            {
                "s": season_id,
                "b": row.bot,
                **{f"add_{name}": getattr(row, name) for name in _TOTALS_BY_DEAL},
                "add_forfeits": 1 if row.forfeited else 0,
                "add_cpd_n": 0 if sample is None else 1,
                "add_cpd_sum": 0.0 if sample is None else sample,
                "add_cpd_sum_sq": 0.0 if sample is None else sample * sample,
                "add_strikes": row.strikes,
                "add_lat_decisions": row.lat_decisions,
                "add_lat_p50_sum": row.lat_p50_ms * row.lat_decisions,
                "add_lat_p95_sum": row.lat_p95_ms * row.lat_decisions,
                "new_lat_max": row.lat_max_ms,
            }
        )
    if updates:
        db.execute(_ADD_TO_TOTALS, updates)


def _season_row_for_claims(db: sqlalchemy.Connection, name: str) -> tuple[int, int]:
    row = db.execute(
        select(SEASONS.c.season_id, SEASONS.c.blocks_planned).where(SEASONS.c.name == name)
    ).first()
    if row is None:
        raise unknown_season(db, name)
    return int(row.season_id), int(row.blocks_planned)
