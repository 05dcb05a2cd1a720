"""The ladder store's base: the database's engine, URL and the two ways every call runs
(:class:`Transactions`), and the base of every topic store (:class:`TopicStore`).

:class:`brandeln.ladder.store.database.LadderStore` opens the database and holds one topic store
per topic (seasons, bots, blocks, the read models, ...), each in a module of its own.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Final, NoReturn, TypeVar

import sqlalchemy

from brandeln.datastore.errors import DatabaseError
from brandeln.datastore.transactions import run_transaction
from brandeln.datastore.url import Backend, DatabaseUrl, as_database_url
from brandeln.ladder.errors import StorageError
from brandeln.ladder.store import migrations

__all__ = [
    "SCHEMA_VERSION",
    "SIDE",
    "TopicStore",
    "Transactions",
    "database_url",
    "now_ms",
    "storage_error",
]

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


class Transactions:
    """The ladder database's engine and URL and the two ways every call runs (:meth:`read`,
    :meth:`write`), shared by :class:`brandeln.ladder.store.database.LadderStore` and each of its
    topic stores; counts the transactions that gave up."""

    def __init__(self, engine: sqlalchemy.Engine, url: DatabaseUrl) -> None:
        self.engine = engine
        self.url = url
        self.errors = 0  # transactions that gave up (StorageError), for the ladder's metrics

    def read(self, what: str, fn: Callable[[sqlalchemy.Connection], _T]) -> _T:
        """``fn`` on a connection of its own, retried where safe; a database failure becomes a
        one-line :class:`StorageError`."""
        return run_transaction(
            self.engine,
            fn,
            url=self.url,
            what=f"ladder database: {what}",
            write=False,
            give_up=self._give_up,
            commit_reads=False,
        )

    def write(self, what: str, fn: Callable[[sqlalchemy.Connection], _T]) -> _T:
        """``fn`` in one write transaction (SQLite's write lock taken first), retried as a
        whole where safe; a database failure becomes a one-line :class:`StorageError`."""
        return run_transaction(
            self.engine,
            fn,
            url=self.url,
            what=f"ladder database: {what}",
            write=True,
            give_up=self._give_up,
        )

    def _give_up(self, error: DatabaseError) -> NoReturn:
        self.errors += 1
        raise storage_error(error, self.url) from error


class TopicStore:
    """The base of every topic store: its queries run through the database's shared
    :class:`Transactions` (:meth:`_read`, :meth:`_write`). Topic stores do not call one another;
    what two of them share is a function on a connection, in a module both import."""

    def __init__(self, transactions: Transactions) -> None:
        self._transactions = transactions

    def _read(self, what: str, fn: Callable[[sqlalchemy.Connection], _T]) -> _T:
        """``fn`` on a connection of its own (:meth:`Transactions.read`)."""
        return self._transactions.read(what, fn)

    def _write(self, what: str, fn: Callable[[sqlalchemy.Connection], _T]) -> _T:
        """``fn`` in one write transaction (:meth:`Transactions.write`)."""
        return self._transactions.write(what, fn)


def storage_error(error: DatabaseError, url: DatabaseUrl) -> StorageError:
    """A database failure as the ladder's error; an SQLite file that is no database says so."""
    message = str(error)
    if url.backend is Backend.SQLITE and message.endswith(": file is not a database"):
        message = f"{url.redacted()}: not a usable ladder database (file is not a database)"
    return StorageError(message)
