"""An SQLAlchemy engine for one side's store (``referee`` or ``ladder``) at a database URL.

SQLite: the file (and its missing folders) created private (0600/0700) before SQLite opens it;
every connection with foreign keys on, a busy timeout, ``synchronous=NORMAL``; transactions are
begun explicitly (the driver's own implicit BEGIN is turned off) so that a write transaction can
be ``BEGIN IMMEDIATE`` (:func:`write_transaction`) and take the write lock before it reads. WAL
mode is set by :func:`brandeln.datastore.migrations.upgrade` once the file is known to be ours, so a
refused file is left as it was.

PostgreSQL: psycopg 3, ``pool_pre_ping`` (a connection the server dropped is replaced, not
handed out), a connect timeout, the side's schema created if missing, and both a
``schema_translate_map`` and a ``search_path`` putting unqualified tables in it: the same Table
objects (no schema in their definitions) serve both dialects.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Final

import sqlalchemy
from sqlalchemy import event
from sqlalchemy.pool import StaticPool

from brandeln.datastore.errors import DatabaseError, explain
from brandeln.datastore.private_files import private_sqlite
from brandeln.datastore.url import Backend, DatabaseUrl

__all__ = [
    "BUSY_TIMEOUT_MS",
    "CONNECT_TIMEOUT_S",
    "open_engine",
    "write_transaction",
]

BUSY_TIMEOUT_MS: Final = 10_000
CONNECT_TIMEOUT_S: Final = 5
_IMMEDIATE: Final = "brandeln_immediate"


def open_engine(url: DatabaseUrl, *, side: str) -> sqlalchemy.Engine:
    """An engine for ``side``'s tables at ``url``, connected once to check that it works.

    Raises :class:`~brandeln.datastore.errors.DatabaseError` (a subclass saying what is wrong:
    server down, wrong password, no such database, not a database file).
    """
    sqlite = url.backend is Backend.SQLITE
    engine = _sqlite_engine(url) if sqlite else _postgresql_engine(url, side)
    try:
        with engine.connect() as connection:
            if url.backend is Backend.POSTGRESQL:
                _create_schema(connection, side)
    except DatabaseError:
        engine.dispose()
        raise
    except (sqlalchemy.exc.SQLAlchemyError, sqlite3.Error, OSError) as error:
        engine.dispose()
        raise explain(error, url) from None
    return engine


def _sqlite_engine(url: DatabaseUrl) -> sqlalchemy.Engine:
    options: dict[str, Any] = {}
    if url.path is None:
        # In memory: one connection for the engine's life, or each would see its own database.
        options = {"poolclass": StaticPool, "connect_args": {"check_same_thread": False}}
    else:
        try:
            # 0600 before SQLite opens it: the WAL and -shm files it creates take its mode.
            private_sqlite(url.path)
        except OSError as error:
            raise DatabaseError(f"{url.path}: cannot create the database file: {error}") from None
    engine = sqlalchemy.create_engine(url.url, **options)

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: sqlite3.Connection, _record: object) -> None:
        # The driver's implicit transactions would begin late (at the first write) and never
        # IMMEDIATE: transactions are begun by the "begin" event below instead.
        dbapi_connection.isolation_level = None
        dbapi_connection.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        dbapi_connection.execute("PRAGMA foreign_keys = ON")
        # With WAL, NORMAL survives a killed process; only power loss may drop the last
        # commits (and the stores are written so that a lost write is simply done again).
        dbapi_connection.execute("PRAGMA synchronous = NORMAL")

    @event.listens_for(engine, "begin")
    def _on_begin(connection: sqlalchemy.Connection) -> None:
        immediate = connection.get_execution_options().get(_IMMEDIATE, False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

    return engine


def _postgresql_engine(url: DatabaseUrl, side: str) -> sqlalchemy.Engine:
    schema = url.schema_for(side)
    engine = sqlalchemy.create_engine(
        url.url,
        pool_pre_ping=True,
        connect_args={
            "connect_timeout": CONNECT_TIMEOUT_S,
            # Raw SQL (a migration's ALTER) finds the side's tables too.
            "options": f"-c search_path={schema},public",
            "application_name": f"brandeln-{side}",
        },
    )
    event.listen(engine, "handle_error", _drop_connection_left_mid_query)
    return engine.execution_options(schema_translate_map={None: schema})


# What psycopg says of a connection that a cut left in the middle of a query: its status stays
# ACTIVE, so the pool's ping (which switches autocommit) and any reuse fail, but psycopg does not
# call that a disconnect and the pool would hand the connection out again and again.
_LEFT_MID_QUERY: Final = ("transaction status ACTIVE", "another command is already in progress")


def left_mid_query(error: BaseException | None) -> bool:
    """Whether ``error`` says its connection was left in the middle of a query (unusable).

    >>> left_mid_query(Exception("can't change 'autocommit' now: connection in transaction "
    ...     "status ACTIVE"))
    True
    >>> left_mid_query(Exception("duplicate key value violates unique constraint"))
    False
    """
    return error is not None and any(sign in str(error) for sign in _LEFT_MID_QUERY)


def _drop_connection_left_mid_query(context: sqlalchemy.engine.ExceptionContext) -> None:
    # Called a disconnect, the connection is dropped from the pool, and the store's retry
    # (brandeln.datastore.retry) takes the error as the database gone for a moment.
    if left_mid_query(context.original_exception):
        context.is_disconnect = True


def _create_schema(connection: sqlalchemy.Connection, side: str) -> None:
    """``CREATE SCHEMA IF NOT EXISTS`` under a lock: two processes starting at once would
    otherwise both try to create it, and one would fail on the catalog's unique key."""
    quoted = connection.dialect.identifier_preparer.quote_identifier(side)
    with connection.begin():
        exists = connection.execute(
            sqlalchemy.text("SELECT 1 FROM pg_namespace WHERE nspname = :name"), {"name": side}
        ).first()
        if exists is None:
            connection.execute(
                sqlalchemy.text("SELECT pg_advisory_xact_lock(hashtext(:key))"),
                {"key": f"brandeln-schema-{side}"},
            )
            connection.exec_driver_sql(f"CREATE SCHEMA IF NOT EXISTS {quoted}")


@contextmanager
def write_transaction(engine: sqlalchemy.Engine) -> Iterator[sqlalchemy.Connection]:
    """A write transaction: committed when the block ends, rolled back on any exception.

    On SQLite it is ``BEGIN IMMEDIATE``: the write lock is taken before the first read, so a
    read-then-write (claim the next block, check where the ratings stand) cannot be overtaken
    by another process between the two. On PostgreSQL it is an ordinary transaction; its
    callers lock the rows they decide on (``FOR UPDATE``).
    """
    with engine.connect() as connection:
        connection.execution_options(**{_IMMEDIATE: True})
        with connection.begin():
            yield connection
