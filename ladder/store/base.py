"""The ladder store's base: opening the database (migrated on open), its engine and URL, and
the two ways every call runs (:meth:`LadderStoreBase._read`, :meth:`LadderStoreBase._write`).

Each topic of :class:`brandeln.ladder.store.database.LadderStore` (seasons, bots, claims, blocks,
the read models) is a mixin on this class, in a module of its own (``ladder/storage_*.py``).
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Final, NoReturn, Self, TypeVar

import sqlalchemy

from brandeln.datastore.engine import open_engine
from brandeln.datastore.errors import DatabaseError, explain
from brandeln.datastore.migrations import upgrade
from brandeln.datastore.transactions import run_transaction
from brandeln.datastore.url import Backend, DatabaseUrl, as_database_url
from brandeln.ladder.errors import StorageError
from brandeln.ladder.store import migrations

__all__ = ["SCHEMA_VERSION", "SIDE", "LadderStoreBase", "database_url", "now_ms"]

# What an SQLite file's PRAGMA user_version says after this code migrated it: one more than
# the last version of the code before Alembic (2), so that code refuses the file as newer
# instead of misreading it. The schema's own version is its Alembic revision.
SCHEMA_VERSION: Final = max(migrations.LEGACY_REVISIONS) + 1
SIDE: Final = "ladder"
_T = TypeVar("_T")


def now_ms() -> int:
    """Milliseconds since the epoch (what the tables' ``*_at`` columns hold)."""
    return int(time.time() * 1000)


def database_url(where: Path | str | DatabaseUrl) -> DatabaseUrl:
    """``where`` as a :class:`DatabaseUrl`: a Path is an SQLite file, a string is parsed."""
    return as_database_url(where, error=StorageError)


class LadderStoreBase:
    """The ladder database's engine, URL and transactions;
    :class:`brandeln.ladder.store.database.LadderStore` adds the queries. Use :meth:`open`; close it
    (or use it as a context manager)."""

    def __init__(self, engine: sqlalchemy.Engine, url: DatabaseUrl) -> None:
        self._engine = engine
        self.url = url
        # The SQLite file (None on PostgreSQL): the runner keeps the bots' logs beside it.
        self.path: Path | None = url.path
        self.errors = 0  # transactions that gave up (StorageError), for the ladder's metrics

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
        return self._engine

    def close(self) -> None:
        """Close every connection."""
        self._engine.dispose()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def _read(self, what: str, fn: Callable[[sqlalchemy.Connection], _T]) -> _T:
        """``fn`` on a connection of its own, retried where safe; a database failure becomes a
        one-line :class:`StorageError`."""
        return run_transaction(
            self._engine,
            fn,
            url=self.url,
            what=f"ladder database: {what}",
            write=False,
            give_up=self._give_up,
            commit_reads=False,
        )

    def _write(self, what: str, fn: Callable[[sqlalchemy.Connection], _T]) -> _T:
        """``fn`` in one write transaction (SQLite's write lock taken first), retried as a
        whole where safe; a database failure becomes a one-line :class:`StorageError`."""
        return run_transaction(
            self._engine,
            fn,
            url=self.url,
            what=f"ladder database: {what}",
            write=True,
            give_up=self._give_up,
        )

    def _give_up(self, error: DatabaseError) -> NoReturn:
        self.errors += 1
        raise storage_error(error, self.url) from error


def storage_error(error: DatabaseError, url: DatabaseUrl) -> StorageError:
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
