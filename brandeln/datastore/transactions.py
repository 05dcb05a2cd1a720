"""One whole transaction of a store, the way both stores (the referee's and the ladder's) run
every call: on a connection of its own, retried as a whole while the database is briefly away
or a concurrent transaction won (:mod:`brandeln.datastore.retry`), and a failure handed back to the
store, which names it in its own layer's error (``brandeln.arena.errors.StoreError``,
``brandeln.ladder.errors.StorageError``).

A write transaction takes SQLite's write lock first
(:func:`brandeln.datastore.engine.write_transaction`).

>>> from brandeln.datastore.engine import open_engine
>>> from brandeln.datastore.url import sqlite_url
>>> from pathlib import Path
>>> url = sqlite_url(Path(":memory:"))
>>> engine = open_engine(url, side="test")
>>> def give_up(error: DatabaseError) -> NoReturn:
...     raise RuntimeError(f"cannot count: {error}") from None
>>> run_transaction(
...     engine, lambda db: db.exec_driver_sql("SELECT 1").scalar(),
...     url=url, what="counting", write=False, give_up=give_up,
... )
1
>>> run_transaction(
...     engine, lambda db: db.exec_driver_sql("SELECT * FROM nowhere").scalar(),
...     url=url, what="counting", write=False, give_up=give_up,
... )
Traceback (most recent call last):
...
RuntimeError: cannot count: :memory:: no such table: nowhere
>>> engine.dispose()
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import NoReturn, TypeVar

import sqlalchemy

from brandeln.datastore.engine import write_transaction
from brandeln.datastore.errors import DatabaseError
from brandeln.datastore.retry import retrying
from brandeln.datastore.url import DatabaseUrl

__all__ = ["run_transaction"]

_T = TypeVar("_T")


def run_transaction(
    engine: sqlalchemy.Engine,
    fn: Callable[[sqlalchemy.Connection], _T],
    *,
    url: DatabaseUrl,
    what: str,
    write: bool,
    give_up: Callable[[DatabaseError], NoReturn],
    commit_reads: bool = True,
    attempts: int | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> _T:
    """``fn`` run in one transaction on ``engine`` (a write one when ``write``), retried while
    the database at ``url`` is unreachable or busy (``attempts``: by default
    :func:`~brandeln.datastore.retry.database_attempts`; ``sleep`` waits between them).

    ``what`` names the transaction in the retry log lines. When it fails for good,
    ``give_up`` is called with the :class:`DatabaseError` (inside the handler, so the error it
    raises may chain it) and raises the store's own error. Any other exception of ``fn``
    passes through as it is.

    A read is committed when ``commit_reads`` (the referee's reads); else it is left to end in
    a rollback when its connection closes (the ladder's). Either way a read keeps nothing: the
    two stores keep the transactions they always had.
    """

    def attempt() -> _T:
        if write:
            with write_transaction(engine) as connection:
                return fn(connection)
        with engine.connect() as connection:
            if not commit_reads:
                return fn(connection)
            with connection.begin():
                return fn(connection)

    try:
        return retrying(attempt, what=what, url=url, sleep=sleep, attempts=attempts)
    except DatabaseError as error:
        give_up(error)
