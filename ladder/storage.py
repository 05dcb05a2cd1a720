"""The ladder database: one SQLite file (WAL mode), its schema versioned with ``user_version``.

Tables: ``seasons``; ``season_bots`` (a season's bots and their referee identities: no token,
only the hash of the one last handed to a bot's process); ``blocks``, ``matches`` (the
referee's match ids, per block and rotation) and ``results`` (per bot per block); ``ratings``
and ``rating_history``. The schema is created on first use and upgraded in place (version 1
kept plaintext tokens: opening such a file drops them). The file and its WAL are 0600.

Only finished blocks are stored, each in **one transaction** together with the rating updates it
unlocks, so an interrupted season loses at most the blocks that were still being played, and
running it again replays those from the start: nothing is lost, nothing is counted twice.

Ratings are applied in block order, whatever order blocks finish in: the rule lives in
:mod:`ladder.rating_order`, which decides which blocks a finished block unlocks; this module
stores the ratings it is given, with the block, and remembers where the rating stands
(``next_to_rate``).

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
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from types import TracebackType
from typing import Any, Final

from datastore.private_files import private_sqlite
from datastore.sqlite_schema import missing_schema
from ladder.config import ExternalBot, SeasonConfig
from ladder.duplicate import BlockPlan, BotBlockResult, DecisionLatency, MatchOutcome
from ladder.errors import SeasonMismatchError, StorageError, UnknownSeasonError
from ladder.ratings import Rating

__all__ = [
    "SCHEMA_VERSION",
    "BotIdentity",
    "LadderStore",
    "RatingRow",
    "RecordedMatch",
    "SeasonInfo",
    "SeasonStatus",
    "season_settings",
    "token_hash",
]

SCHEMA_VERSION: Final = 2
# Version 1 kept each command bot's token in season_bots.token, in plaintext; version 2 keeps
# only a hash of it (the runner asks the referee for a fresh token on every run).
_SEASON_BOTS_V2: Final = """
CREATE TABLE season_bots_v2 (
    season_id    INTEGER NOT NULL REFERENCES seasons(season_id),
    bot          TEXT NOT NULL,
    kind         TEXT NOT NULL CHECK (kind IN ('command', 'external')),
    bot_id       TEXT,
    referee_name TEXT,
    token_hash   TEXT,
    PRIMARY KEY (season_id, bot)
)
"""


class SeasonStatus(StrEnum):
    """How the last run of a season ended (stored, so `season list` can tell)."""

    RUNNING = "running"  # being played, or its process was killed without a word
    FINISHED = "finished"  # every planned block is recorded
    INTERRUPTED = "interrupted"  # stopped by Ctrl-C or a cancellation; run it again to resume
    FAILED = "failed"  # stopped by an error (``status_detail`` says which); fix and rerun


_SCHEMA: Final = """
CREATE TABLE seasons (
    season_id      INTEGER PRIMARY KEY,
    name           TEXT NOT NULL UNIQUE,
    settings_json  TEXT NOT NULL,   -- what must not change between runs (see season_settings)
    ruleset        TEXT NOT NULL,
    players        INTEGER NOT NULL,
    blocks_planned INTEGER NOT NULL,
    next_to_rate   INTEGER NOT NULL DEFAULT 0,  -- ratings include every block below this index
    created_at     INTEGER NOT NULL,            -- ms since the epoch
    updated_at     INTEGER NOT NULL,
    status         TEXT NOT NULL DEFAULT 'running',  -- a SeasonStatus
    status_detail  TEXT NOT NULL DEFAULT ''          -- why it failed
);
CREATE TABLE season_bots (
    season_id    INTEGER NOT NULL REFERENCES seasons(season_id),
    bot          TEXT NOT NULL,     -- the name in the season file
    kind         TEXT NOT NULL CHECK (kind IN ('command', 'external')),
    bot_id       TEXT,              -- the referee's id; NULL until a command bot is registered
    referee_name TEXT,              -- the name it was registered under at the referee
    token_hash   TEXT,              -- SHA-256 of the token last handed to its process
    PRIMARY KEY (season_id, bot)
);
CREATE TABLE blocks (
    season_id   INTEGER NOT NULL REFERENCES seasons(season_id),
    block_index INTEGER NOT NULL,
    seed        TEXT NOT NULL,      -- 64-bit: stored as text, SQLite integers are signed
    bots_json   TEXT NOT NULL,      -- seating of rotation 0
    finished_at INTEGER NOT NULL,
    PRIMARY KEY (season_id, block_index)
);
CREATE TABLE matches (
    season_id        INTEGER NOT NULL,
    block_index      INTEGER NOT NULL,
    rotation         INTEGER NOT NULL,
    match_id         TEXT NOT NULL,
    suit_permutation TEXT NOT NULL,
    bots_json        TEXT NOT NULL, -- season bot names by seat
    balances_json    TEXT NOT NULL,
    forfeited_json   TEXT NOT NULL,
    deals_played     INTEGER NOT NULL,
    PRIMARY KEY (season_id, block_index, rotation),
    FOREIGN KEY (season_id, block_index) REFERENCES blocks(season_id, block_index)
);
CREATE INDEX matches_by_match_id ON matches(match_id);
CREATE TABLE results (
    season_id      INTEGER NOT NULL,
    block_index    INTEGER NOT NULL,
    bot            TEXT NOT NULL,
    rank           INTEGER NOT NULL,
    chips          INTEGER NOT NULL,
    deals          INTEGER NOT NULL,
    forfeited      INTEGER NOT NULL,
    timeouts       INTEGER NOT NULL,
    illegal        INTEGER NOT NULL,
    strikes        INTEGER NOT NULL,
    contracts_bid  INTEGER NOT NULL,
    contracts_made INTEGER NOT NULL,
    PRIMARY KEY (season_id, block_index, bot),
    FOREIGN KEY (season_id, block_index) REFERENCES blocks(season_id, block_index)
);
CREATE TABLE ratings (
    season_id INTEGER NOT NULL REFERENCES seasons(season_id),
    bot       TEXT NOT NULL,
    mu        REAL NOT NULL,
    sigma     REAL NOT NULL,
    blocks    INTEGER NOT NULL,     -- rated blocks played
    PRIMARY KEY (season_id, bot)
);
CREATE TABLE rating_history (
    season_id   INTEGER NOT NULL,
    block_index INTEGER NOT NULL,
    bot         TEXT NOT NULL,
    mu          REAL NOT NULL,      -- after the block
    sigma       REAL NOT NULL,
    PRIMARY KEY (season_id, block_index, bot)
);
"""

# From schema 1 (see LadderStore._upgrade): seasons gained their status.
_STATUS_COLUMNS: Final = (
    "ALTER TABLE seasons ADD COLUMN status TEXT NOT NULL DEFAULT 'running'",
    "ALTER TABLE seasons ADD COLUMN status_detail TEXT NOT NULL DEFAULT ''",
    "UPDATE seasons SET status = 'finished' WHERE blocks_planned <="
    " (SELECT count(*) FROM blocks b WHERE b.season_id = seasons.season_id)",
)

# Decision latency per bot per block (MatchSummary.latency, combined over the block's matches):
# a table of its own, created where it is missing, so the schema version and the other tables
# stay as they are and an older program still opens the file. Blocks stored before it have no
# row here: their bots' latency is unknown, not zero.
_LATENCY_TABLE: Final = """
CREATE TABLE IF NOT EXISTS result_latency (
    season_id   INTEGER NOT NULL,
    block_index INTEGER NOT NULL,
    bot         TEXT NOT NULL,
    decisions   INTEGER NOT NULL,
    p50_ms      INTEGER NOT NULL,
    p95_ms      INTEGER NOT NULL,
    max_ms      INTEGER NOT NULL,
    PRIMARY KEY (season_id, block_index, bot),
    FOREIGN KEY (season_id, block_index) REFERENCES blocks(season_id, block_index)
)
"""

_V1_LACKS: Final = frozenset({"season_bots.token_hash", "seasons.status", "seasons.status_detail"})


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


def _statements(script: str) -> Iterator[str]:
    """The SQL statements of ``script`` one by one (``executescript`` would commit the open
    transaction first); a ``;`` inside a comment does not end one."""
    pending = ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            yield pending
            pending = ""
    if pending.strip():
        yield pending


def _now_ms() -> int:
    return int(time.time() * 1000)


class LadderStore:
    """The ladder database. Use :meth:`open`; close it (or use it as a context manager)."""

    def __init__(self, connection: sqlite3.Connection, path: Path) -> None:
        self._db = connection
        self.path = path

    @classmethod
    def open(cls, path: Path, *, create: bool = True) -> LadderStore:
        """Open the database at ``path``, creating it (and its directory) when ``create``.

        Raises :class:`StorageError` when it is missing (and not ``create``), not a SQLite file,
        not a ladder database, or of a newer schema version.
        """
        memory = str(path) == ":memory:"
        if not memory and not path.exists() and not create:
            raise StorageError(
                f"no ladder database at {path}; run `brandeln season run FILE` first "
                "(or point --data / BRANDELN_DATA at the right directory)"
            )
        try:
            if not memory:
                # 0600 before SQLite opens it: the WAL and -shm files it creates take its mode.
                private_sqlite(path)
        except OSError as error:
            raise StorageError(f"{path}: cannot open the ladder database: {error}") from None
        try:
            connection = sqlite3.connect(str(path), isolation_level=None, timeout=10.0)
        except sqlite3.Error as error:
            raise StorageError(f"{path}: cannot open the ladder database: {error}") from None
        store = cls(connection, path)
        try:
            store._prepare(memory)
        except sqlite3.DatabaseError as error:
            connection.close()
            raise StorageError(f"{path}: not a usable ladder database ({error})") from None
        except StorageError:
            connection.close()
            raise
        return store

    def _prepare(self, memory: bool) -> None:
        db = self._db
        db.row_factory = sqlite3.Row
        # The version and the tables from one snapshot: another process may be creating the
        # schema this very moment, and a version read before its commit with the tables read
        # after would look like another program's file.
        db.execute("BEGIN")
        try:
            version = int(db.execute("PRAGMA user_version").fetchone()[0])
            tables = int(db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0])
        finally:
            db.execute("COMMIT")
        if version > SCHEMA_VERSION:
            raise StorageError(
                f"{self.path}: ladder database schema version {version} is newer than this "
                f"program's ({SCHEMA_VERSION}); upgrade brandeln-arena"
            )
        if version > 0:
            # Checked before anything is written (even the journal mode): a refused file is
            # left exactly as it was.
            # Version 1 kept plaintext tokens where version 2 keeps their hashes,
            # and had no season status: the upgrade adds both.
            exempt = _V1_LACKS if version == 1 else frozenset()
            missing = missing_schema(db, _SCHEMA, exempt)
            if missing:
                raise StorageError(
                    f"{self.path}: not a usable ladder database (schema version {version} but "
                    f"{missing}); restore it from a backup or move it away to start afresh"
                )
        elif tables:
            raise StorageError(f"{self.path}: an SQLite file, but not a ladder database")
        if not memory:
            db.execute("PRAGMA journal_mode=WAL")
            # WAL with synchronous=NORMAL survives a killed process; only power loss may drop
            # the last commits, and a lost block is simply played again.
            db.execute("PRAGMA synchronous=NORMAL")
        db.execute("PRAGMA foreign_keys=ON")
        if version == 0:
            self._create_schema()
        elif version < SCHEMA_VERSION:
            self._upgrade(memory)
        db.execute(_LATENCY_TABLE)

    def _create_schema(self) -> None:
        """The schema and its version together, in one transaction. The version is read again
        under the write lock: another process (a runner, `ratings`) that opened the same new
        file at the same moment may have created it first."""
        with self._transaction() as db:
            if int(db.execute("PRAGMA user_version").fetchone()[0]) == 0:
                for statement in _statements(_SCHEMA):
                    db.execute(statement)
                db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def _upgrade(self, memory: bool) -> None:
        """Bring a version-1 database up to date, in one transaction.

        Version 2 gave seasons their status (a stored season with every planned block is
        finished; any other is taken as running: its last run cannot be told apart any more),
        and dropped the plaintext tokens, keeping their hashes: the table is rebuilt without the
        column, then VACUUM rewrites the file and a truncating checkpoint empties the WAL, so no
        copy of a token is left in the free pages of either.
        """
        with self._transaction() as db:
            # Read again under the write lock: another process may have upgraded meanwhile.
            if int(db.execute("PRAGMA user_version").fetchone()[0]) >= SCHEMA_VERSION:
                return
            for statement in _STATUS_COLUMNS:
                db.execute(statement)
            rows = db.execute(
                "SELECT season_id, bot, kind, bot_id, token, referee_name FROM season_bots"
            ).fetchall()
            db.execute(_SEASON_BOTS_V2)
            db.executemany(
                "INSERT INTO season_bots_v2 (season_id, bot, kind, bot_id, referee_name,"
                " token_hash) VALUES (?, ?, ?, ?, ?, ?)",
                [
                    (
                        row["season_id"],
                        row["bot"],
                        row["kind"],
                        row["bot_id"],
                        row["referee_name"],
                        None if row["token"] is None else token_hash(row["token"]),
                    )
                    for row in rows
                ],
            )
            db.execute("DROP TABLE season_bots")
            db.execute("ALTER TABLE season_bots_v2 RENAME TO season_bots")
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        self._db.execute("VACUUM")
        if not memory:
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def close(self) -> None:
        """Close the connection."""
        self._db.close()

    def __enter__(self) -> LadderStore:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """BEGIN IMMEDIATE ... COMMIT, or ROLLBACK on any exception."""
        db = self._db
        if not db.in_transaction:
            db.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
        if db.in_transaction:
            db.execute("COMMIT")

    # -- seasons ----------------------------------------------------------------------------

    def ensure_season(self, config: SeasonConfig, initial: Rating) -> SeasonInfo:
        """Create the season of ``config``, or check that the stored one has its settings.

        Raises :class:`SeasonMismatchError` naming the settings that differ: a season's deals,
        schedule and ratings depend on them, so changing them needs a new season name.
        """
        settings = season_settings(config)
        with self._transaction() as db:
            row = db.execute(
                "SELECT season_id, settings_json FROM seasons WHERE name = ?", (config.name,)
            ).fetchone()
            now = _now_ms()
            if row is None:
                cursor = db.execute(
                    "INSERT INTO seasons (name, settings_json, ruleset, players, blocks_planned,"
                    " created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (
                        config.name,
                        json.dumps(settings, sort_keys=True),
                        config.ruleset,
                        config.players,
                        config.blocks,
                        now,
                        now,
                    ),
                )
                season_id = cursor.lastrowid
                for bot in config.bots:
                    external = isinstance(bot, ExternalBot)
                    db.execute(
                        "INSERT INTO season_bots (season_id, bot, kind, bot_id) VALUES (?,?,?,?)",
                        (
                            season_id,
                            bot.name,
                            "external" if external else "command",
                            bot.bot_id if isinstance(bot, ExternalBot) else None,
                        ),
                    )
                    db.execute(
                        "INSERT INTO ratings (season_id, bot, mu, sigma, blocks)"
                        " VALUES (?, ?, ?, ?, 0)",
                        (season_id, bot.name, initial.mu, initial.sigma),
                    )
            else:
                stored = json.loads(row["settings_json"])
                different = [key for key in settings if stored.get(key) != settings[key]]
                if different:
                    where = f" ({config.source})" if config.source else ""
                    raise SeasonMismatchError(
                        f"season {config.name!r} was started with different settings; "
                        f"changed{where}: {', '.join(different)}. Keep the stored settings to "
                        "resume it, or give the season a new name"
                    )
                db.execute(
                    "UPDATE seasons SET blocks_planned = ?, updated_at = ?, status = ?,"
                    " status_detail = '' WHERE season_id = ?",
                    (config.blocks, now, SeasonStatus.RUNNING, row["season_id"]),
                )
        return self.season(config.name)

    def season_names(self) -> list[str]:
        """Every stored season's name, oldest first."""
        rows = self._db.execute("SELECT name FROM seasons ORDER BY created_at, season_id")
        return [row["name"] for row in rows]

    def season(self, name: str) -> SeasonInfo:
        """The season named ``name``; raises :class:`UnknownSeasonError` listing the known."""
        row = self._db.execute(
            "SELECT s.*, (SELECT count(*) FROM blocks b WHERE b.season_id = s.season_id)"
            " AS finished FROM seasons s WHERE name = ?",
            (name,),
        ).fetchone()
        if row is None:
            known = ", ".join(self.season_names()) or "none yet"
            raise UnknownSeasonError(f"no season named {name!r}; seasons: {known}")
        return SeasonInfo(
            season_id=row["season_id"],
            name=row["name"],
            ruleset=row["ruleset"],
            players=row["players"],
            blocks_planned=row["blocks_planned"],
            blocks_finished=row["finished"],
            created_at=row["created_at"],
            updated_at=row["updated_at"],
            status=SeasonStatus(row["status"]),
            status_detail=row["status_detail"],
        )

    def set_season_status(self, name: str, status: SeasonStatus, detail: str = "") -> None:
        """Record how the season's run ended (``detail``: why it failed)."""
        with self._transaction() as db:
            cursor = db.execute(
                "UPDATE seasons SET status = ?, status_detail = ?, updated_at = ? WHERE name = ?",
                (status, detail, _now_ms(), name),
            )
            if cursor.rowcount != 1:
                raise UnknownSeasonError(f"no season named {name!r}")

    def latest_season(self) -> SeasonInfo | None:
        """The season run most recently, or None when there is none."""
        row = self._db.execute(
            "SELECT name FROM seasons ORDER BY updated_at DESC, season_id DESC LIMIT 1"
        ).fetchone()
        return None if row is None else self.season(row["name"])

    # -- bot identities ---------------------------------------------------------------------

    def bot_identities(self, season: str) -> dict[str, BotIdentity]:
        """The season's bots and how the referee knows them, by season bot name."""
        season_id = self.season(season).season_id
        rows = self._db.execute(
            "SELECT bot, kind, bot_id, referee_name, token_hash FROM season_bots"
            " WHERE season_id = ?",
            (season_id,),
        )
        return {
            row["bot"]: BotIdentity(
                row["bot"], row["kind"], row["bot_id"], row["referee_name"], row["token_hash"]
            )
            for row in rows
        }

    def save_bot_identity(
        self, season: str, bot: str, *, bot_id: str, token_hash: str, referee_name: str
    ) -> None:
        """Remember a command bot's registration, so a resumed season reuses it, and the hash
        of the token its process is given (:func:`token_hash`; never the token itself)."""
        season_id = self.season(season).season_id
        with self._transaction() as db:
            cursor = db.execute(
                "UPDATE season_bots SET bot_id = ?, token_hash = ?, referee_name = ?"
                " WHERE season_id = ? AND bot = ?",
                (bot_id, token_hash, referee_name, season_id, bot),
            )
            if cursor.rowcount != 1:
                raise StorageError(f"season {season!r} has no bot {bot!r}")

    # -- blocks -----------------------------------------------------------------------------

    def finished_blocks(self, season: str) -> set[int]:
        """The indexes of the season's recorded blocks."""
        season_id = self.season(season).season_id
        rows = self._db.execute("SELECT block_index FROM blocks WHERE season_id = ?", (season_id,))
        return {row["block_index"] for row in rows}

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
        transaction. Use :func:`ladder.rating_order.record_and_rate`, which computes them.

        ``next_to_rate`` is where the rating stood when ``rated`` was computed: if another
        writer moved it since, nothing is stored (:class:`StorageError`). Raises
        :class:`StorageError` too if the block is already stored.
        """
        season_id = self.season(season).season_id
        try:
            with self._transaction() as db:
                (stored_next,) = db.execute(
                    "SELECT next_to_rate FROM seasons WHERE season_id = ?", (season_id,)
                ).fetchone()
                if stored_next != next_to_rate:
                    raise StorageError(
                        f"season {season!r}: ratings stand at block {stored_next}, not "
                        f"{next_to_rate}: another run recorded blocks meanwhile"
                    )
                db.execute(
                    "INSERT INTO blocks (season_id, block_index, seed, bots_json, finished_at)"
                    " VALUES (?, ?, ?, ?, ?)",
                    (season_id, plan.index, str(plan.seed), json.dumps(plan.bots), _now_ms()),
                )
                db.executemany(
                    "INSERT INTO matches (season_id, block_index, rotation, match_id,"
                    " suit_permutation, bots_json, balances_json, forfeited_json, deals_played)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [
                        (
                            season_id,
                            plan.index,
                            outcome.plan.rotation,
                            outcome.match_id,
                            outcome.plan.suit_permutation,
                            json.dumps(outcome.plan.bots),
                            json.dumps(outcome.balances),
                            json.dumps(sorted(outcome.forfeited)),
                            outcome.deals_played,
                        )
                        for outcome in outcomes
                    ],
                )
                db.executemany(
                    "INSERT INTO results (season_id, block_index, bot, rank, chips, deals,"
                    " forfeited, timeouts, illegal, strikes, contracts_bid, contracts_made)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [
                        (
                            season_id,
                            plan.index,
                            r.bot,
                            r.rank,
                            r.chips,
                            r.deals,
                            int(r.forfeited),
                            r.timeouts,
                            r.illegal,
                            r.strikes,
                            r.contracts_bid,
                            r.contracts_made,
                        )
                        for r in results.values()
                    ],
                )
                db.executemany(
                    "INSERT INTO result_latency (season_id, block_index, bot, decisions,"
                    " p50_ms, p95_ms, max_ms) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [
                        (
                            season_id,
                            plan.index,
                            r.bot,
                            r.latency.decisions,
                            r.latency.p50_ms,
                            r.latency.p95_ms,
                            r.latency.max_ms,
                        )
                        for r in results.values()
                        if r.latency.decisions
                    ],
                )
                self._store_ratings(db, season_id, rated)
                db.execute(
                    "UPDATE seasons SET updated_at = ? WHERE season_id = ?",
                    (_now_ms(), season_id),
                )
        except sqlite3.IntegrityError as error:
            raise StorageError(
                f"season {season!r}: block {plan.index} cannot be recorded ({error}); "
                "was it already recorded?"
            ) from None

    def _store_ratings(
        self, db: sqlite3.Connection, season_id: int, rated: Sequence[RatedBlock]
    ) -> None:
        for block in rated:
            for bot, rating in block.ratings.items():
                db.execute(
                    "UPDATE ratings SET mu = ?, sigma = ?, blocks = blocks + 1"
                    " WHERE season_id = ? AND bot = ?",
                    (rating.mu, rating.sigma, season_id, bot),
                )
                db.execute(
                    "INSERT INTO rating_history (season_id, block_index, bot, mu, sigma)"
                    " VALUES (?, ?, ?, ?, ?)",
                    (season_id, block.index, bot, rating.mu, rating.sigma),
                )
        if rated:
            db.execute(
                "UPDATE seasons SET next_to_rate = ? WHERE season_id = ?",
                (rated[-1].index + 1, season_id),
            )

    def next_to_rate(self, season: str) -> int:
        """The first block not rated yet (every block below it is)."""
        season_id = self.season(season).season_id
        (index,) = self._db.execute(
            "SELECT next_to_rate FROM seasons WHERE season_id = ?", (season_id,)
        ).fetchone()
        return int(index)

    def unrated_rankings(self, season: str) -> dict[int, dict[str, int]]:
        """The rankings (rank by bot) of the finished blocks not rated yet, by block index."""
        season_id = self.season(season).season_id
        rankings: dict[int, dict[str, int]] = {}
        for row in self._db.execute(
            "SELECT block_index, bot, rank FROM results WHERE season_id = ? AND block_index >="
            " (SELECT next_to_rate FROM seasons WHERE season_id = ?) ORDER BY block_index, bot",
            (season_id, season_id),
        ):
            rankings.setdefault(row["block_index"], {})[row["bot"]] = row["rank"]
        return rankings

    # -- reading ----------------------------------------------------------------------------

    def ratings(self, season: str) -> list[RatingRow]:
        """The season's current ratings, every bot of the season included."""
        season_id = self.season(season).season_id
        rows = self._db.execute(
            "SELECT bot, mu, sigma, blocks FROM ratings WHERE season_id = ? ORDER BY bot",
            (season_id,),
        )
        return [
            RatingRow(row["bot"], Rating(row["mu"], row["sigma"]), row["blocks"]) for row in rows
        ]

    def results(self, season: str, *, rated_only: bool = False) -> list[tuple[int, BotBlockResult]]:
        """Every (block index, bot result) of the season, by block then bot.

        ``rated_only`` leaves out finished blocks still waiting for an earlier block (so the
        statistics and the ratings describe the same blocks).
        """
        season_id = self.season(season).season_id
        rated = (
            " AND block_index < (SELECT next_to_rate FROM seasons WHERE season_id = ?)"
            if rated_only
            else ""
        )
        rows = self._db.execute(
            f"SELECT * FROM results WHERE season_id = ?{rated} ORDER BY block_index, bot",
            (season_id, season_id) if rated_only else (season_id,),
        )
        return [
            (
                row["block_index"],
                BotBlockResult(
                    bot=row["bot"],
                    rank=row["rank"],
                    chips=row["chips"],
                    deals=row["deals"],
                    forfeited=bool(row["forfeited"]),
                    timeouts=row["timeouts"],
                    illegal=row["illegal"],
                    strikes=row["strikes"],
                    contracts_bid=row["contracts_bid"],
                    contracts_made=row["contracts_made"],
                ),
            )
            for row in rows
        ]

    def latency(
        self, season: str, *, rated_only: bool = False
    ) -> dict[tuple[int, str], DecisionLatency]:
        """Each bot's decision latency by (block index, bot), where it was recorded.

        ``rated_only`` as in :meth:`results`.
        """
        season_id = self.season(season).season_id
        rated = (
            " AND block_index < (SELECT next_to_rate FROM seasons WHERE season_id = ?)"
            if rated_only
            else ""
        )
        rows = self._db.execute(
            f"SELECT * FROM result_latency WHERE season_id = ?{rated}",
            (season_id, season_id) if rated_only else (season_id,),
        )
        return {
            (row["block_index"], row["bot"]): DecisionLatency(
                row["decisions"], row["p50_ms"], row["p95_ms"], row["max_ms"]
            )
            for row in rows
        }

    def rating_history(self, season: str) -> list[tuple[int, str, Rating]]:
        """Every (block index, bot, rating after that block), in block order."""
        season_id = self.season(season).season_id
        rows = self._db.execute(
            "SELECT block_index, bot, mu, sigma FROM rating_history WHERE season_id = ?"
            " ORDER BY block_index, bot",
            (season_id,),
        )
        return [(row["block_index"], row["bot"], Rating(row["mu"], row["sigma"])) for row in rows]

    def matches(self, season: str) -> list[RecordedMatch]:
        """The matches of the season's finished blocks, by block and rotation."""
        season_id = self.season(season).season_id
        rows = self._db.execute(
            "SELECT * FROM matches WHERE season_id = ? ORDER BY block_index, rotation",
            (season_id,),
        )
        return [
            RecordedMatch(
                block_index=row["block_index"],
                rotation=row["rotation"],
                match_id=row["match_id"],
                suit_permutation=row["suit_permutation"],
                bots=tuple(json.loads(row["bots_json"])),
                balances=tuple(json.loads(row["balances_json"])),
                deals_played=row["deals_played"],
            )
            for row in rows
        ]
