"""The ladder database on SQLAlchemy Core: an SQLite file (the default, ``DATA/ladder.db``) or
the ``ladder`` schema of a PostgreSQL database, the same tables
(:mod:`brandeln.ladder.store.schema`) and the same behaviour on both. The schema is migrated with
Alembic on open (``ladder/migrations``; files of older versions, ``user_version`` 1 and 2, are
adopted), and a database of a newer brandeln is refused. An SQLite file and its WAL are 0600.

Every write is one short transaction, retried as a whole when the server was briefly away
(:mod:`brandeln.datastore.retry`). Only finished blocks are stored, each in **one transaction**
together with the rating updates it unlocks, so an interrupted season loses at most the blocks that
were still being played, and running it again replays those from the start: nothing is lost, nothing
is counted twice. Recording a block that is already stored with the same matches is a no-op (a
retried transaction whose commit did land), with other matches an error.

Blocks are claimed before they are played (:meth:`BlockStore.claim_block`, in a transaction:
``FOR UPDATE SKIP LOCKED`` on PostgreSQL, ``BEGIN IMMEDIATE`` on SQLite), so several runners of
one season share its blocks. Ratings are applied in block order whoever records: the recording
transaction locks the season's row and the rule itself lives in
:mod:`brandeln.ladder.ratings.order`.

This module is the store's front: :class:`LadderStore` opens the database and holds one topic
store per topic as an attribute, each a class of its own module on
:class:`brandeln.ladder.store.base.TopicStore`, all sharing the store's
:class:`brandeln.ladder.store.base.Transactions` (engine, URL, retries, the count of transactions
given up): ``seasons`` (:mod:`brandeln.ladder.store.seasons`, the season rows every topic starts
from in :mod:`brandeln.ladder.store.season_rows`), ``bots`` (bot identities,
:mod:`brandeln.ladder.store.bots`), ``blocks`` (block claims, finished blocks and the ratings they
unlock, :mod:`brandeln.ladder.store.blocks`), ``reads`` (the read models,
:mod:`brandeln.ladder.store.reads`), the always-on ladder's ``ladders`` (ladders and their
versions, :mod:`brandeln.ladder.store.living`), ``planned`` (planned blocks,
:mod:`brandeln.ladder.store.planned`), ``challenges`` (:mod:`brandeln.ladder.store.challenges`)
and ``presence`` (:mod:`brandeln.ladder.store.presence`), ``commitments`` (committed seeds and
seed periods, :mod:`brandeln.ladder.store.commitments`), ``audit`` (what ``season verify`` reads,
:mod:`brandeln.ladder.store.audit`), ``rerun`` (a season's final rerun,
:mod:`brandeln.ladder.store.rerun`) and ``roles`` (each match's role figures once judged,
:mod:`brandeln.ladder.store.roles`). Topic stores do not call one another: what two share is a
function on a connection in a module both import.

>>> from pathlib import Path
>>> from brandeln.ladder.season.config import RatingParams
>>> with LadderStore.open(Path(":memory:")) as store:
...     store.seasons.season_names()
[]
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from types import TracebackType
from typing import Self

import sqlalchemy

from brandeln.datastore.engine import open_engine
from brandeln.datastore.errors import DatabaseError, explain
from brandeln.datastore.migrations import upgrade
from brandeln.datastore.url import Backend, DatabaseUrl
from brandeln.ladder.errors import StorageError
from brandeln.ladder.store import migrations
from brandeln.ladder.store.audit import AuditStore

# SIDE, database_url and RateUnlocked are not exported, but stay reachable here as before.
from brandeln.ladder.store.base import (
    SCHEMA_VERSION,
    SIDE,
    Transactions,
    database_url,
    storage_error,
)
from brandeln.ladder.store.blocks import BlockStore, RatedBlock, RateUnlocked  # noqa: F401
from brandeln.ladder.store.bots import BotIdentity, BotIdentityStore, token_hash
from brandeln.ladder.store.challenges import Challenge, ChallengeLimitError, ChallengeStore
from brandeln.ladder.store.commitments import CommitmentStore
from brandeln.ladder.store.living import LadderVersion, LivingLadderStore, VersionError
from brandeln.ladder.store.planned import PlannedBlock, PlannedBlockStore
from brandeln.ladder.store.presence import PresenceStore, VersionPresence
from brandeln.ladder.store.reads import BotTotals, RatingRow, ReadModelStore, RecordedMatch
from brandeln.ladder.store.rerun import RerunRecord, RerunStore
from brandeln.ladder.store.roles import KeptFigures, RoleFigureStore
from brandeln.ladder.store.season_rows import SeasonInfo, SeasonStatus
from brandeln.ladder.store.seasons import SeasonStore, season_settings

__all__ = [
    "SCHEMA_VERSION",
    "BotIdentity",
    "BotTotals",
    "Challenge",
    "ChallengeLimitError",
    "KeptFigures",
    "LadderStore",
    "LadderVersion",
    "PlannedBlock",
    "RatedBlock",
    "RatingRow",
    "RecordedMatch",
    "RerunRecord",
    "SeasonInfo",
    "SeasonStatus",
    "VersionError",
    "VersionPresence",
    "season_settings",
    "token_hash",
]


class LadderStore:
    """The ladder database: its engine, URL and transactions, and one topic store per topic (see
    the module doc). Use :meth:`open`; close it (or use it as a context manager)."""

    def __init__(self, engine: sqlalchemy.Engine, url: DatabaseUrl) -> None:
        self._transactions = Transactions(engine, url)
        self.url = url
        # The SQLite file (None on PostgreSQL): the runner keeps the bots' logs beside it.
        self.path: Path | None = url.path
        self.seasons = SeasonStore(self._transactions)
        self.bots = BotIdentityStore(self._transactions)
        self.blocks = BlockStore(self._transactions)
        self.reads = ReadModelStore(self._transactions)
        self.ladders = LivingLadderStore(self._transactions)
        self.planned = PlannedBlockStore(self._transactions)
        self.challenges = ChallengeStore(self._transactions)
        self.presence = PresenceStore(self._transactions)
        self.commitments = CommitmentStore(self._transactions)
        self.audit = AuditStore(self._transactions)
        self.rerun = RerunStore(self._transactions)
        self.roles = RoleFigureStore(self._transactions)

    @classmethod
    def open(cls, where: Path | str | DatabaseUrl, *, create: bool = True) -> Self:
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
            raise storage_error(error, url) from None
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
            raise storage_error(error, url) from None
        if result.adopted_from == 1 and url.backend is Backend.SQLITE:
            _scrub_free_pages(engine, url)
        return cls(engine, url)

    @property
    def engine(self) -> sqlalchemy.Engine:
        """The store's engine (``brandeln db copy`` reads and writes its tables directly)."""
        return self._transactions.engine

    @property
    def errors(self) -> int:
        """Transactions that gave up (StorageError), for the ladder's metrics."""
        return self._transactions.errors

    def close(self) -> None:
        """Close every connection."""
        self._transactions.engine.dispose()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


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
