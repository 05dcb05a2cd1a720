"""The ladder database on SQLAlchemy Core: an SQLite file (the default, ``DATA/ladder.db``) or
the ``ladder`` schema of a PostgreSQL database, the same tables (:mod:`ladder.schema`) and the
same behaviour on both. The schema is migrated with Alembic on open (``ladder/migrations``;
files of older versions, ``user_version`` 1 and 2, are adopted), and a database of a newer
brandeln is refused. An SQLite file and its WAL are 0600.

Every write is one short transaction, retried as a whole when the server was briefly away
(:mod:`datastore.retry`). Only finished blocks are stored, each in **one transaction** together
with the rating updates it unlocks, so an interrupted season loses at most the blocks that were
still being played, and running it again replays those from the start: nothing is lost, nothing
is counted twice. Recording a block that is already stored with the same matches is a no-op (a
retried transaction whose commit did land), with other matches an error.

Blocks are claimed before they are played (:meth:`LadderStore.claim_block`, in a transaction:
``FOR UPDATE SKIP LOCKED`` on PostgreSQL, ``BEGIN IMMEDIATE`` on SQLite), so several runners of
one season share its blocks. Ratings are applied in block order whoever records: the recording
transaction locks the season's row and the rule itself lives in :mod:`ladder.rating_order`.

>>> from ladder.config import RatingParams
>>> with LadderStore.open(Path(":memory:")) as store:
...     store.season_names()
[]
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from types import TracebackType
from typing import Any, Final, TypeVar

import sqlalchemy
from sqlalchemy import and_, bindparam, case, func, select, update

from datastore.engine import open_engine, write_transaction
from datastore.errors import DatabaseError, explain
from datastore.keys import can_name_a_row
from datastore.migrations import upgrade
from datastore.retry import retrying
from datastore.url import Backend, DatabaseUrl, parse_database_url, sqlite_url
from ladder import migrations
from ladder.claims import STALE_CLAIM_MS, runner_alive
from ladder.config import ExternalBot, SeasonConfig
from ladder.duplicate import BlockPlan, BotBlockResult, DecisionLatency, MatchOutcome
from ladder.errors import SeasonMismatchError, StorageError, UnknownSeasonError
from ladder.ratings import Rating
from ladder.schema import (
    BLOCK_CLAIMS,
    BLOCKS,
    BOT_TOTALS,
    MATCHES,
    RATING_HISTORY,
    RATINGS,
    RESULTS,
    SEASON_BOTS,
    SEASONS,
    ClaimState,
)

__all__ = [
    "SCHEMA_VERSION",
    "BotIdentity",
    "BotTotals",
    "LadderStore",
    "RatedBlock",
    "RatingRow",
    "RecordedMatch",
    "SeasonInfo",
    "SeasonStatus",
    "season_settings",
    "token_hash",
]

# What an SQLite file's PRAGMA user_version says after this code migrated it: one more than
# the last version of the code before Alembic (2), so that code refuses the file as newer
# instead of misreading it. The schema's own version is its Alembic revision.
SCHEMA_VERSION: Final = max(migrations.LEGACY_REVISIONS) + 1
SIDE: Final = "ladder"
_T = TypeVar("_T")
# (next block to rate, the unrated finished blocks' rankings, every bot's rating) ->
# the blocks rated now, in order (ladder.rating_order decides).
RateUnlocked = Callable[
    [int, Mapping[int, Mapping[str, int]], Mapping[str, Rating]], Sequence["RatedBlock"]
]


class SeasonStatus(StrEnum):
    """How the last run of a season ended (stored, so `season list` can tell)."""

    RUNNING = "running"  # being played, or its process was killed without a word
    FINISHED = "finished"  # every planned block is recorded
    INTERRUPTED = "interrupted"  # stopped by Ctrl-C or a cancellation; run it again to resume
    FAILED = "failed"  # stopped by an error (``status_detail`` says which); fix and rerun


def season_settings(config: SeasonConfig) -> dict[str, Any]:
    """The settings a stored season must keep: they decide its deals, schedule and ratings.

    ``blocks`` may grow (the schedule is prefix-stable), and the time control, concurrency and
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


@dataclass(frozen=True, slots=True)
class RatedBlock:
    """One block's rating update, as the store keeps it: each of its bots' ratings after it
    (computed in block order by :mod:`ladder.rating_order`)."""

    index: int
    ratings: Mapping[str, Rating]


@dataclass(frozen=True, slots=True)
class SeasonInfo:
    """A stored season."""

    season_id: int
    name: str
    ruleset: str
    players: int
    blocks_planned: int
    blocks_finished: int
    created_at: int
    updated_at: int
    status: SeasonStatus = SeasonStatus.RUNNING
    status_detail: str = ""  # why it failed


@dataclass(frozen=True, slots=True)
class BotIdentity:
    """How a season bot is known to the referee.

    No token: a run asks the referee for a fresh one. ``token_hash`` (SHA-256, hex) is that of
    the token last handed to the bot's process, so that a later run can find a process that a
    killed run left behind (:func:`ladder.bot_processes.find_orphans`).
    """

    bot: str
    kind: str
    bot_id: str | None
    referee_name: str | None
    token_hash: str | None


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
    lat_decisions: int = 0  # the latency sums (see ladder.schema.BOT_TOTALS)
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


def token_hash(token: str) -> str:
    """What the ladder keeps of a bot token: its SHA-256, hex (a token is a random secret of
    256 bits, so a plain hash tells nothing about it).

    >>> token_hash("t")[:12]
    'e3b98a4da31a'
    """
    return hashlib.sha256(token.encode()).hexdigest()


def _now_ms() -> int:
    return int(time.time() * 1000)


def database_url(where: Path | str | DatabaseUrl) -> DatabaseUrl:
    """``where`` as a :class:`DatabaseUrl`: a Path is an SQLite file, a string is parsed."""
    if isinstance(where, DatabaseUrl):
        return where
    if isinstance(where, Path):
        return sqlite_url(where)
    try:
        return parse_database_url(where)
    except DatabaseError as error:
        raise StorageError(str(error)) from None


class LadderStore:
    """The ladder database. Use :meth:`open`; close it (or use it as a context manager)."""

    def __init__(self, engine: sqlalchemy.Engine, url: DatabaseUrl) -> None:
        self._engine = engine
        self.url = url
        # The SQLite file (None on PostgreSQL): the runner keeps the bots' logs beside it.
        self.path: Path | None = url.path

    @classmethod
    def open(cls, where: Path | str | DatabaseUrl, *, create: bool = True) -> LadderStore:
        """Open the ladder database at ``where`` (a Path: an SQLite file; a string: a path or
        a database URL), creating it (and its folder) when ``create``, migrating its schema.

        Raises :class:`StorageError` when it is missing (and not ``create``), not a database,
        not a ladder database, of a newer schema, or the server cannot be reached (the
        message names the host and port, the user or the database).
        """
        url = database_url(where)
        if url.path is not None and not url.path.exists() and not create:
            raise StorageError(
                f"no ladder database at {url.path}; run `brandeln season run FILE` first "
                "(or point --data / BRANDELN_DATA or --db / BRANDELN_DB at the right one)"
            )
        try:
            engine = open_engine(url, side=SIDE)
        except DatabaseError as error:
            raise _storage_error(error, url) from None
        try:
            result = upgrade(
                engine,
                url,
                side=SIDE,
                script_location=migrations.SCRIPT_LOCATION,
                legacy_revisions=migrations.LEGACY_REVISIONS,
                check_legacy=migrations.check_legacy,
            )
        except DatabaseError as error:
            engine.dispose()
            raise _storage_error(error, url) from None
        if result.adopted_from == 1 and url.backend is Backend.SQLITE:
            _scrub_free_pages(engine, url)
        return cls(engine, url)

    @property
    def engine(self) -> sqlalchemy.Engine:
        """The store's engine (``brandeln db copy`` reads and writes its tables directly)."""
        return self._engine

    def close(self) -> None:
        """Close every connection."""
        self._engine.dispose()

    def __enter__(self) -> LadderStore:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def _run(self, what: str, fn: Callable[[], _T]) -> _T:
        """One whole transaction (or read), retried where safe; a database failure becomes a
        one-line :class:`StorageError`."""
        try:
            return retrying(fn, what=f"ladder database: {what}", url=self.url)
        except DatabaseError as error:
            raise _storage_error(error, self.url) from error

    def _read(self, what: str, fn: Callable[[sqlalchemy.Connection], _T]) -> _T:
        def attempt() -> _T:
            with self._engine.connect() as connection:
                return fn(connection)

        return self._run(what, attempt)

    def _write(self, what: str, fn: Callable[[sqlalchemy.Connection], _T]) -> _T:
        def attempt() -> _T:
            with write_transaction(self._engine) as connection:
                return fn(connection)

        return self._run(what, attempt)

    # -- seasons ----------------------------------------------------------------------------

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
            now = _now_ms()
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
                db.execute(
                    update(SEASONS)
                    .where(SEASONS.c.season_id == season_id)
                    .values(
                        blocks_planned=config.blocks,
                        updated_at=now,
                        status=SeasonStatus.RUNNING.value,
                        status_detail="",
                    )
                )
            _add_claims(db, season_id, config.blocks)

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
                _season_info(row)
                for row in db.execute(
                    select(SEASONS).order_by(SEASONS.c.created_at, SEASONS.c.season_id)
                )
            ],
        )

    def season(self, name: str) -> SeasonInfo:
        """The season named ``name``; raises :class:`UnknownSeasonError` listing the known."""
        return self._read(f"reading season {name!r}", lambda db: _season(db, name))

    def set_season_status(self, name: str, status: SeasonStatus, detail: str = "") -> None:
        """Record how the season's run ended (``detail``: why it failed)."""

        def store(db: sqlalchemy.Connection) -> None:
            changed = db.execute(
                update(SEASONS)
                .where(SEASONS.c.name == name)
                .values(status=status.value, status_detail=detail, updated_at=_now_ms())
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
            return None if name is None else _season(db, name)

        return self._read("finding the latest season", latest)

    # -- bot identities ---------------------------------------------------------------------

    def bot_identities(self, season: str) -> dict[str, BotIdentity]:
        """The season's bots and how the referee knows them, by season bot name."""

        def read(db: sqlalchemy.Connection) -> dict[str, BotIdentity]:
            season_id = _season_id(db, season)
            rows = db.execute(
                select(
                    SEASON_BOTS.c.bot,
                    SEASON_BOTS.c.kind,
                    SEASON_BOTS.c.bot_id,
                    SEASON_BOTS.c.referee_name,
                    SEASON_BOTS.c.token_hash,
                ).where(SEASON_BOTS.c.season_id == season_id)
            )
            return {row.bot: BotIdentity(*row) for row in rows}

        return self._read(f"reading the bots of season {season!r}", read)

    def seasons_of_bot(self, bot_id: str) -> list[tuple[str, str]]:
        """(season, the bot's name in it) for each season where the referee's ``bot_id``
        played, newest season first: one query, whatever the number of seasons."""
        if not can_name_a_row(bot_id):
            return []

        def read(db: sqlalchemy.Connection) -> list[tuple[str, str]]:
            rows = db.execute(
                select(SEASONS.c.name, SEASON_BOTS.c.bot)
                .join(SEASON_BOTS, SEASON_BOTS.c.season_id == SEASONS.c.season_id)
                .where(SEASON_BOTS.c.bot_id == bot_id)
                .order_by(
                    SEASONS.c.created_at.desc(), SEASONS.c.season_id.desc(), SEASON_BOTS.c.bot
                )
            )
            return [(row.name, row.bot) for row in rows]

        return self._read(f"finding the seasons of bot {bot_id!r}", read)

    def save_bot_identity(
        self, season: str, bot: str, *, bot_id: str, token_hash: str, referee_name: str
    ) -> None:
        """Remember a command bot's registration, so a resumed season reuses it, and the hash
        of the token its process is given (:func:`token_hash`; never the token itself)."""

        def store(db: sqlalchemy.Connection) -> None:
            season_id = _season_id(db, season)
            changed = db.execute(
                update(SEASON_BOTS)
                .where(SEASON_BOTS.c.season_id == season_id, SEASON_BOTS.c.bot == bot)
                .values(bot_id=bot_id, token_hash=token_hash, referee_name=referee_name)
            ).rowcount
            if changed != 1:
                raise StorageError(f"season {season!r} has no bot {bot!r}")

        self._write(f"saving bot {bot!r} of season {season!r}", store)

    # -- claims -----------------------------------------------------------------------------

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
                cutoff = _now_ms() - stale_after_ms
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
            now = _now_ms()
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
            season_id = _season_id(db, season)
            db.execute(
                update(BLOCK_CLAIMS)
                .where(
                    BLOCK_CLAIMS.c.season_id == season_id,
                    BLOCK_CLAIMS.c.claimed_by == runner,
                    BLOCK_CLAIMS.c.state == ClaimState.CLAIMED.value,
                )
                .values(heartbeat_at=_now_ms())
            )

        self._write(f"refreshing the claims of season {season!r}", beat)

    def release_claims(self, season: str, runner: str) -> None:
        """Give back ``runner``'s unfinished blocks (it stops without playing them)."""

        def release(db: sqlalchemy.Connection) -> None:
            season_id = _season_id(db, season)
            db.execute(
                update(BLOCK_CLAIMS)
                .where(
                    BLOCK_CLAIMS.c.season_id == season_id,
                    BLOCK_CLAIMS.c.claimed_by == runner,
                    BLOCK_CLAIMS.c.state == ClaimState.CLAIMED.value,
                )
                .values(state=ClaimState.OPEN.value, claimed_by=None, heartbeat_at=None)
            )

        self._write(f"releasing the claims of season {season!r}", release)

    def claims(self, season: str) -> dict[int, tuple[ClaimState, str | None]]:
        """Every planned block's claim: its state and who holds it."""

        def read(db: sqlalchemy.Connection) -> dict[int, tuple[ClaimState, str | None]]:
            season_id = _season_id(db, season)
            rows = db.execute(
                select(
                    BLOCK_CLAIMS.c.block_index, BLOCK_CLAIMS.c.state, BLOCK_CLAIMS.c.claimed_by
                ).where(BLOCK_CLAIMS.c.season_id == season_id)
            )
            return {row.block_index: (ClaimState(row.state), row.claimed_by) for row in rows}

        return self._read(f"reading the claims of season {season!r}", read)

    # -- blocks -----------------------------------------------------------------------------

    def finished_blocks(self, season: str) -> set[int]:
        """The indexes of the season's recorded blocks."""

        def read(db: sqlalchemy.Connection) -> set[int]:
            season_id = _season_id(db, season)
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

        ``rate_unlocked`` (see :func:`ladder.rating_order.record_and_rate`) is given where
        the rating stands, the unrated blocks' rankings (this one's included) and the ratings,
        and returns the blocks rated now. Returns their indexes. The same block recorded
        again with the same matches is a no-op (``[]``); with other matches an error.
        """

        def record(db: sqlalchemy.Connection) -> list[int]:
            season_id, next_to_rate = _lock_season(db, season)
            if _already_recorded(db, season, season_id, plan, outcomes):
                return []
            _insert_block(db, season_id, plan, outcomes, results)
            rankings = _unrated_rankings(db, season_id, next_to_rate)
            before = {row.bot: row.rating for row in _ratings(db, season_id)}
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
            season_id, stored_next = _lock_season(db, season)
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
            season_id = _season_id(db, season)
            return int(
                db.execute(
                    select(SEASONS.c.next_to_rate).where(SEASONS.c.season_id == season_id)
                ).scalar_one()
            )

        return self._read(f"reading season {season!r}", read)

    def unrated_rankings(self, season: str) -> dict[int, dict[str, int]]:
        """The rankings (rank by bot) of the finished blocks not rated yet, by block index."""

        def read(db: sqlalchemy.Connection) -> dict[int, dict[str, int]]:
            season_id = _season_id(db, season)
            next_to_rate = db.execute(
                select(SEASONS.c.next_to_rate).where(SEASONS.c.season_id == season_id)
            ).scalar_one()
            return _unrated_rankings(db, season_id, next_to_rate)

        return self._read(f"reading season {season!r}", read)

    # -- reading ----------------------------------------------------------------------------

    def ratings(self, season: str) -> list[RatingRow]:
        """The season's current ratings, every bot of the season included."""
        return self._read(
            f"reading the ratings of season {season!r}",
            lambda db: _ratings(db, _season_id(db, season)),
        )

    def bot_totals(self, season: str) -> dict[str, BotTotals]:
        """Each bot's sums over the season's rated blocks, by bot: one row per bot, however
        many blocks (the leaderboard's columns)."""

        def read(db: sqlalchemy.Connection) -> dict[str, BotTotals]:
            season_id = _season_id(db, season)
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
            season_id = _season_id(db, season)
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
            season_id = _season_id(db, season)
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
            season_id = _season_id(db, season)
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
            season_id = _season_id(db, season)
            row = db.execute(
                select(MATCHES)
                .where(MATCHES.c.season_id == season_id)
                .order_by(MATCHES.c.block_index.desc(), MATCHES.c.rotation.desc())
                .limit(1)
            ).first()
            return None if row is None else _recorded_match(row)

        return self._read(f"reading the matches of season {season!r}", read)


# -- inside a transaction -------------------------------------------------------------------


def _unknown(db: sqlalchemy.Connection, name: str) -> UnknownSeasonError:
    names = db.execute(
        select(SEASONS.c.name).order_by(SEASONS.c.created_at, SEASONS.c.season_id)
    ).scalars()
    known = ", ".join(names) or "none yet"
    return UnknownSeasonError(f"no season named {name!r}; seasons: {known}")


def _season_id(db: sqlalchemy.Connection, name: str) -> int:
    if not can_name_a_row(name):
        raise _unknown(db, name)
    season_id = db.execute(select(SEASONS.c.season_id).where(SEASONS.c.name == name)).scalar()
    if season_id is None:
        raise _unknown(db, name)
    return int(season_id)


def _season(db: sqlalchemy.Connection, name: str) -> SeasonInfo:
    if not can_name_a_row(name):
        raise _unknown(db, name)
    row = db.execute(select(SEASONS).where(SEASONS.c.name == name)).first()
    if row is None:
        raise _unknown(db, name)
    return _season_info(row)


def _season_info(row: sqlalchemy.Row[Any]) -> SeasonInfo:
    return SeasonInfo(
        season_id=row.season_id,
        name=row.name,
        ruleset=row.ruleset,
        players=row.players,
        blocks_planned=row.blocks_planned,
        blocks_finished=row.blocks_recorded,
        created_at=row.created_at,
        updated_at=row.updated_at,
        status=SeasonStatus(row.status),
        status_detail=row.status_detail,
    )


def _advisory_lock(db: sqlalchemy.Connection, key: str) -> None:
    """On PostgreSQL, a lock on ``key`` until the transaction ends (for rows not there yet)."""
    if db.dialect.name == "postgresql":
        db.execute(sqlalchemy.text("SELECT pg_advisory_xact_lock(hashtext(:key))"), {"key": key})


def _lock_season(db: sqlalchemy.Connection, name: str) -> tuple[int, int]:
    """(season id, next block to rate), the season's row locked until the transaction ends
    (PostgreSQL; SQLite's BEGIN IMMEDIATE already holds the whole file)."""
    row = db.execute(
        select(SEASONS.c.season_id, SEASONS.c.next_to_rate)
        .where(SEASONS.c.name == name)
        .with_for_update()
    ).first()
    if row is None:
        raise _unknown(db, name)
    return int(row.season_id), int(row.next_to_rate)


def _season_row_for_claims(db: sqlalchemy.Connection, name: str) -> tuple[int, int]:
    row = db.execute(
        select(SEASONS.c.season_id, SEASONS.c.blocks_planned).where(SEASONS.c.name == name)
    ).first()
    if row is None:
        raise _unknown(db, name)
    return int(row.season_id), int(row.blocks_planned)


def _add_claims(db: sqlalchemy.Connection, season_id: int, planned: int) -> None:
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
    now = _now_ms()
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
    rankings: dict[int, dict[str, int]] = {}
    rows = db.execute(
        select(RESULTS.c.block_index, RESULTS.c.bot, RESULTS.c.rank)
        .where(RESULTS.c.season_id == season_id, RESULTS.c.block_index >= next_to_rate)
        .order_by(RESULTS.c.block_index, RESULTS.c.bot)
    )
    for row in rows:
        rankings.setdefault(row.block_index, {})[row.bot] = row.rank
    return rankings


def _ratings(db: sqlalchemy.Connection, season_id: int) -> list[RatingRow]:
    rows = db.execute(
        select(RATINGS.c.bot, RATINGS.c.mu, RATINGS.c.sigma, RATINGS.c.blocks)
        .where(RATINGS.c.season_id == season_id)
        .order_by(RATINGS.c.bot)
    )
    return [RatingRow(row.bot, Rating(row.mu, row.sigma), row.blocks) for row in rows]


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
    """The rated blocks' ratings, history and the bots' totals, and where the rating stands."""
    for block in rated:
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


def _storage_error(error: DatabaseError, url: DatabaseUrl) -> StorageError:
    """A database failure as the ladder's error; an SQLite file that is no database says so."""
    message = str(error)
    if url.backend is Backend.SQLITE and message.endswith(": file is not a database"):
        message = f"{url.redacted()}: not a usable ladder database (file is not a database)"
    return StorageError(message)


def _scrub_free_pages(engine: sqlalchemy.Engine, url: DatabaseUrl) -> None:
    """After the upgrade from version 1 dropped the plaintext tokens: VACUUM rewrites the file
    and a truncating checkpoint empties the WAL, so no copy is left in the free pages."""
    raw = engine.raw_connection()
    try:
        driver = raw.driver_connection
        assert isinstance(driver, sqlite3.Connection)
        driver.execute("VACUUM")
        if not url.is_memory:
            driver.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    except sqlite3.Error as error:
        raise StorageError(str(explain(error, url))) from None
    finally:
        raw.close()
