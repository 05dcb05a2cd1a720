"""The referee store's base: opening the database (a refused SQLite file left as it was,
migrated by Alembic on open), its transactions (:meth:`RefereeStoreBase.transact`), the match
logs' home, and this referee's liveness on a database several referees share.

Each topic of :class:`brandeln.arena.store.database.RefereeStore` (bots and tokens, the admin token,
sessions, the match index) is a part on this class, in a module of its own.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import sqlite3
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn, TypeVar

from sqlalchemy import Connection, func, select
from sqlalchemy.exc import SQLAlchemyError

from brandeln.arena.errors import StoreError
from brandeln.arena.store.logs import DatabaseLogStore, FileLogStore, LogStore
from brandeln.arena.store.migrations import SCRIPT_LOCATION
from brandeln.arena.store.schema import SIDE
from brandeln.datastore.engine import open_engine
from brandeln.datastore.errors import DatabaseError, DatabaseUnavailable, explain
from brandeln.datastore.migrations import upgrade
from brandeln.datastore.retry import database_attempts
from brandeln.datastore.sqlite_schema import missing_schema
from brandeln.datastore.transactions import run_transaction
from brandeln.datastore.url import Backend, DatabaseUrl, as_database_url

__all__ = [
    "LEGACY_REVISIONS",
    "SCHEMA_VERSION_1",
    "V1_SCHEMA",
    "RefereeStoreBase",
    "now_ms",
    "open_target",
]

T = TypeVar("T")

_log = logging.getLogger(__name__)

# The schema of today's SQLite files (``PRAGMA user_version`` 1), to check a file before it is
# stamped as Alembic revision 0001 (arena/store/migrations/versions/0001_schema_version_1.py).
SCHEMA_VERSION_1 = 1
V1_SCHEMA = """
CREATE TABLE bots (bot_id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE,
    token_hash TEXT NOT NULL UNIQUE, created_at INTEGER NOT NULL,
    revoked INTEGER NOT NULL DEFAULT 0);
CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE sessions (session_id TEXT PRIMARY KEY, bot_id TEXT NOT NULL REFERENCES bots(bot_id),
    bot_version TEXT NOT NULL, peer TEXT NOT NULL, opened_at INTEGER NOT NULL, closed_at INTEGER);
CREATE TABLE matches (match_id TEXT PRIMARY KEY, ruleset TEXT NOT NULL, bot_ids TEXT NOT NULL,
    bot_names TEXT NOT NULL, balances TEXT NOT NULL, ranks TEXT NOT NULL,
    forfeited TEXT NOT NULL, strikes TEXT NOT NULL, status TEXT NOT NULL,
    deals_played INTEGER NOT NULL, started_at INTEGER NOT NULL, ended_at INTEGER NOT NULL,
    log_path TEXT NOT NULL);
CREATE TABLE match_bots (match_id TEXT NOT NULL REFERENCES matches(match_id),
    bot_id TEXT NOT NULL, PRIMARY KEY (match_id, bot_id));
"""
# Today's files are stamped with the revision of their schema, then upgraded.
LEGACY_REVISIONS = {SCHEMA_VERSION_1: "0001"}


def now_ms() -> int:
    return int(time.time() * 1000)


def open_target(target: Path | str | DatabaseUrl) -> DatabaseUrl:
    """A store's location: a path (an SQLite file), a URL text, or a parsed URL."""
    return as_database_url(target, error=StoreError)


def _check_sqlite_file(path: Path) -> bool:
    """Read (never write) an existing SQLite file before the engine opens it: True when it is
    a referee database of schema version 1 to stamp; StoreError when it is no usable referee
    database, so a refused file is left exactly as it was."""
    if not path.exists() or path.stat().st_size == 0:
        return False
    try:
        db = sqlite3.connect(path)
    except sqlite3.Error as error:
        raise StoreError(f"cannot open the referee database {path}: {error}") from None
    try:
        version = int(db.execute("PRAGMA user_version").fetchone()[0])
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
        if "alembic_version" in tables:
            return False  # ours since revision 0001: Alembic knows its revision or refuses it
        if version > SCHEMA_VERSION_1:
            raise StoreError(
                f"{path} has schema version {version}, newer than this referee's "
                f"{SCHEMA_VERSION_1}; upgrade brandeln-arena"
            )
        if version == 0:
            if tables:
                raise StoreError(f"{path}: an SQLite file, but not a referee database")
            return False
        missing = missing_schema(db, V1_SCHEMA)
    except sqlite3.DatabaseError as error:
        raise StoreError(f"{path}: not a usable referee database ({error})") from None
    finally:
        db.close()
    if missing:
        raise StoreError(
            f"{path}: not a usable referee database (schema version {version} "
            f"but {missing}); restore it from a backup or move it away to start afresh"
        )
    return True


class RefereeStoreBase:
    """The referee's database (an SQLite file or a PostgreSQL URL) and its match logs, opened;
    :class:`brandeln.arena.store.database.RefereeStore` adds the queries.

    ``logs_dir`` is where an SQLite referee writes its logs (default: ``logs/`` beside the
    file); a PostgreSQL referee keeps them in the database.
    """

    def __init__(
        self,
        target: Path | str | DatabaseUrl,
        logs_dir: Path | None = None,
        *,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        """Open (or create) the database and migrate it to this code's schema;
        :class:`StoreError` when it is not a usable referee database: not SQLite, another
        program's, of a newer schema, missing tables or columns, or a server that cannot be
        reached (the message names what is wrong, the password redacted). A refused SQLite
        file is left exactly as it was: nothing is written before the schema is known."""
        self.url = open_target(target)
        self.where = self.url.redacted()
        self.path = self.url.path or Path(self.where)  # what messages name
        self._sleep = sleep
        self._unreachable = False  # the last transaction gave up: see transact
        self.errors = 0  # transactions that gave up (StoreError), for the referee's metrics
        # This process's rows (sessions, matches) on a database several referees may share.
        self.referee_id = f"r_{uuid.uuid4().hex[:16]}"
        self._liveness: Connection | None = None
        if self.url.backend is Backend.SQLITE and self.url.path is not None:
            _check_sqlite_file(self.url.path)
        try:
            self.engine = open_engine(self.url, side=SIDE)
        except DatabaseError as error:
            raise StoreError(_named(str(error), self.where)) from None
        try:
            upgrade(
                self.engine,
                self.url,
                side=SIDE,
                script_location=SCRIPT_LOCATION,
                legacy_revisions=LEGACY_REVISIONS,
            )
            if self.url.backend is Backend.POSTGRESQL:
                self._hold_liveness_lock()
        except DatabaseError as error:
            self.engine.dispose()
            raise StoreError(_named(str(error), self.where)) from None
        except SQLAlchemyError as error:
            self.engine.dispose()
            raise StoreError(_named(str(explain(error, self.url)), self.where)) from None
        self.logs: LogStore
        if self.url.backend is Backend.POSTGRESQL:
            self.logs = DatabaseLogStore(self, self.where)
        else:
            self.logs = FileLogStore(logs_dir or self.path.parent / "logs")

    def log_store(self, logs_dir: Path) -> LogStore:
        """Where this store's referee writes match logs: files in ``logs_dir`` beside an SQLite
        database, the database itself on PostgreSQL."""
        return self.logs if self.shared else FileLogStore(logs_dir)

    def read_log(self, log_path: str) -> bytes:
        """The log an index row names (a file, or in this database); OSError or StoreError."""
        return self.logs.read(log_path)

    @property
    def shared(self) -> bool:
        """Whether other referees may use this database at once (PostgreSQL)."""
        return self.url.backend is Backend.POSTGRESQL

    # --- transactions ----------------------------------------------------------------------
    def transact(self, fn: Callable[[Connection], T], what: str, *, write: bool = True) -> T:
        """Run ``fn`` in one transaction (a write one takes SQLite's write lock first),
        retried with backoff while the database cannot be reached or another process holds
        it; StoreError once it gives up, naming what it was doing."""

        def give_up(error: DatabaseError) -> NoReturn:
            if isinstance(error, DatabaseUnavailable):
                self._unreachable = True
            self.errors += 1
            _log.warning(
                "store error: cannot %s: %s",
                what,
                error,
                extra={"event": "store_error", "what": what, "error": str(error)},
            )
            raise StoreError(f"cannot {what}: {error}") from None

        # Once a transaction has given up on an unreachable database, the next ones try once
        # each until one gets through: the referee's writes run on its event loop, and a
        # backoff per write (sessions ending, logs, the index) would stall every table for
        # minutes while its callers wait for results that cannot be recorded.
        attempts = 1 if self._unreachable else database_attempts()
        result = run_transaction(
            self.engine,
            fn,
            url=self.url,
            what=what,
            write=write,
            give_up=give_up,
            attempts=attempts,
            sleep=self._sleep,
        )
        self._unreachable = False
        return result

    def read(self, fn: Callable[[Connection], T], what: str) -> T:
        """:meth:`transact` for a read-only transaction."""
        return self.transact(fn, what, write=False)

    def _hold_liveness_lock(self) -> None:
        """Hold a session-level advisory lock on this referee's id for as long as it runs: a
        referee that finds the lock free knows the owner of those rows is gone."""
        connection = self.engine.connect()
        try:
            connection.execute(select(func.pg_advisory_lock(_lock_key(self.referee_id))))
            connection.commit()
        except BaseException:
            connection.close()
            raise
        self._liveness = connection

    def _refresh_liveness(self) -> None:
        """Take the advisory lock again if its connection was lost (a server restart, a cut
        network): while it is not held, a referee starting up would count this one as gone."""
        if not self.shared:
            return
        if self._liveness is not None:
            try:
                self._liveness.execute(select(1))
                self._liveness.commit()
                return
            except SQLAlchemyError:
                with contextlib.suppress(SQLAlchemyError):
                    self._liveness.close()
                self._liveness = None
        # Unreachable now: the next match's start tries again (its own write will retry).
        with contextlib.suppress(SQLAlchemyError):
            self._hold_liveness_lock()

    def _gone(self, conn: Connection, referee_ids: set[str | None]) -> list[str | None]:
        """Of ``referee_ids``, those no live referee holds (None: rows of an older version or
        of a copy, whose referee is gone). On SQLite every referee but this one is gone: one
        referee per file (brandeln.arena.datalock)."""
        if not self.shared or self._liveness is None:
            return [r for r in referee_ids if r != self.referee_id]
        gone: list[str | None] = []
        for referee_id in referee_ids:
            if referee_id == self.referee_id:
                continue
            if referee_id is None:
                gone.append(None)
                continue
            key = _lock_key(referee_id)
            free = self._liveness.execute(select(func.pg_try_advisory_lock(key))).scalar()
            if free:
                self._liveness.execute(select(func.pg_advisory_unlock(key)))
                gone.append(referee_id)
            self._liveness.commit()
        return gone

    def close(self) -> None:
        if self._liveness is not None:
            self._liveness.close()
            self._liveness = None
        self.engine.dispose()

    def integrity_ok(self) -> bool:
        """SQLite's integrity check (PostgreSQL keeps its own: always True there)."""
        if self.shared:
            return True
        result = self.read(
            lambda conn: conn.exec_driver_sql("PRAGMA integrity_check").scalar(), "check"
        )
        return bool(result == "ok")


def _named(message: str, where: str) -> str:
    """``message``, naming the database if it does not yet."""
    return message if where in message else f"{where}: {message}"


def _lock_key(referee_id: str) -> int:
    """The advisory lock key (a signed 64-bit integer) of a referee id."""
    return int.from_bytes(hashlib.sha256(referee_id.encode()).digest()[:8], "big", signed=True)
