"""The referee's database: bot identities, the admin token, session history, the match index
and (on PostgreSQL) the match logs.

SQLAlchemy Core over SQLite (a file, WAL mode, the default) or PostgreSQL (its ``referee``
schema, shared by several referees): the same tables (:mod:`arena.schema`), the same queries,
migrated on open by Alembic (:mod:`arena.migrations`). Tokens are stored only as SHA-256 hashes
(they are random 256-bit secrets, so a plain hash is enough; no password stretching is needed).
An SQLite file and its WAL are private to the user (0600).

Every call is one short transaction; while the database cannot be reached a transaction is
retried with backoff (``datastore.retry``: safe, a transaction either committed or did not,
and the writes that could run twice are idempotent), then a :class:`StoreError` says why.

Several referees on one PostgreSQL: ids never collide (bot and match ids are random, session
numbers come from a sequence), and each referee marks its rows with its own ``referee_id`` and
holds an advisory lock on it while it runs, so a referee's start-up recovery aborts and closes
only what referees that are gone left running.
"""

from __future__ import annotations

import contextlib
import hashlib
import secrets
import sqlite3
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import sqlalchemy
from sqlalchemy import Connection, func, select, update
from sqlalchemy.exc import SQLAlchemyError

from arena.errors import BotNameTakenError, BotRevokedError, NotFoundError, StoreError
from arena.limits import ProtocolLimits
from arena.logrecords import MatchStatus
from arena.logstore import DatabaseLogStore, FileLogStore, LogStore
from arena.match_index import MatchIndex, MatchRecord, dialect_insert
from arena.migrations import SCRIPT_LOCATION
from arena.names import check_name
from arena.schema import BOTS, SESSION_NUMBERS, SESSIONS, SETTINGS, SIDE
from datastore.engine import open_engine, write_transaction
from datastore.errors import DatabaseError, DatabaseUnavailable, explain
from datastore.keys import can_name_a_row
from datastore.migrations import upgrade
from datastore.retry import database_attempts, retrying
from datastore.sqlite_schema import missing_schema
from datastore.url import Backend, DatabaseUrl, parse_database_url, sqlite_url

__all__ = ["BotRecord", "MatchRecord", "RefereeStore", "hash_token", "new_token", "open_target"]

T = TypeVar("T")

# The schema of today's SQLite files (``PRAGMA user_version`` 1), to check a file before it is
# stamped as Alembic revision 0001 (arena/migrations/versions/0001_schema_version_1.py).
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

_KEEP_PER_BOT = ProtocolLimits.closed_sessions_kept_per_bot


def now_ms() -> int:
    return int(time.time() * 1000)


def new_token() -> str:
    """A fresh secret token (256 bits, URL-safe)."""
    return secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def open_target(target: Path | str | DatabaseUrl) -> DatabaseUrl:
    """A store's location: a path (an SQLite file), a URL text, or a parsed URL."""
    if isinstance(target, DatabaseUrl):
        return target
    if isinstance(target, Path):
        return sqlite_url(target)
    try:
        return parse_database_url(target)
    except DatabaseError as error:
        raise StoreError(str(error)) from None


@dataclass(frozen=True)
class BotRecord:
    bot_id: str
    name: str
    created_at: int
    revoked: bool


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


class RefereeStore(MatchIndex):
    """The referee's database (an SQLite file or a PostgreSQL URL) and its match logs.

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

        def attempt() -> T:
            if write:
                with write_transaction(self.engine) as conn:
                    return fn(conn)
            with self.engine.connect() as conn, conn.begin():
                return fn(conn)

        # Once a transaction has given up on an unreachable database, the next ones try once
        # each until one gets through: the referee's writes run on its event loop, and a
        # backoff per write (sessions ending, logs, the index) would stall every table for
        # minutes while its callers wait for results that cannot be recorded.
        attempts = 1 if self._unreachable else database_attempts()
        try:
            result = retrying(
                attempt, what=what, url=self.url, sleep=self._sleep, attempts=attempts
            )
        except DatabaseUnavailable as error:
            self._unreachable = True
            raise StoreError(f"cannot {what}: {error}") from None
        except DatabaseError as error:
            raise StoreError(f"cannot {what}: {error}") from None
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

    def record_match(self, match: MatchRecord) -> None:
        if match.status is MatchStatus.RUNNING:
            self._refresh_liveness()
        super().record_match(match)

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
        referee per file (arena.datalock)."""
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

    # --- admin token -----------------------------------------------------------------------
    def admin_token_hash(self) -> str | None:
        def read(conn: Connection) -> str | None:
            value = conn.execute(
                select(SETTINGS.c.value).where(SETTINGS.c.key == "admin_token_hash")
            ).scalar()
            return None if value is None else str(value)

        return self.read(read, "read the admin token")

    def set_admin_token(self, token: str) -> None:
        row = {"key": "admin_token_hash", "value": hash_token(token)}

        def write(conn: Connection) -> None:
            statement = dialect_insert(conn, SETTINGS).values(row)
            conn.execute(
                statement.on_conflict_do_update(
                    index_elements=["key"], set_={"value": statement.excluded.value}
                )
            )

        self.transact(write, "store the admin token")

    # --- bots ------------------------------------------------------------------------------
    def register_bot(self, name: str, token: str | None = None) -> tuple[BotRecord, str]:
        """Create a bot identity; returns it and its token (which is stored only as a hash).

        ``token``: the one to accept (`bot check --token`, a bot configured already); by
        default a fresh one.
        """
        name = check_name(name)  # ValueError: empty, too long, or control characters
        token = token or new_token()
        record = BotRecord(f"bot_{uuid.uuid4().hex[:12]}", name, now_ms(), False)
        row = {
            "bot_id": record.bot_id,
            "name": record.name,
            "token_hash": hash_token(token),
            "created_at": record.created_at,
        }

        def insert(conn: Connection) -> bool:
            insert = dialect_insert(conn, BOTS).values(row).on_conflict_do_nothing()
            if conn.execute(insert.returning(BOTS.c.bot_id)).first() is not None:
                return True
            # Nothing inserted: the name is taken, or this very row is there already (a retry
            # after a commit whose answer was lost).
            mine = select(BOTS.c.bot_id).where(BOTS.c.token_hash == row["token_hash"])
            return conn.execute(mine).first() is not None

        if not self.transact(insert, "register a bot"):
            raise BotNameTakenError(f"a bot named {name!r} is already registered")
        return record, token

    def _bots(self, where: sqlalchemy.ColumnElement[bool] | None = None) -> list[BotRecord]:
        query = select(BOTS.c.bot_id, BOTS.c.name, BOTS.c.created_at, BOTS.c.revoked)
        if where is not None:
            query = query.where(where)
        query = query.order_by(BOTS.c.created_at, BOTS.c.name)

        def read(conn: Connection) -> list[BotRecord]:
            return [BotRecord(r[0], r[1], int(r[2]), bool(r[3])) for r in conn.execute(query)]

        return self.read(read, "read the bots")

    def bot_for_token(self, token: str) -> BotRecord | None:
        found = self._bots(BOTS.c.token_hash == hash_token(token))
        if not found or found[0].revoked:
            return None
        return found[0]

    def bot(self, bot_id: str) -> BotRecord:
        found = self._bots(BOTS.c.bot_id == bot_id) if can_name_a_row(bot_id) else []
        if not found:
            raise NotFoundError(f"no bot with id {bot_id!r}")
        return found[0]

    def bots(self) -> list[BotRecord]:
        return self._bots()

    def known_bot_ids(self, bot_ids: Iterable[str]) -> set[str]:
        """Which of ``bot_ids`` are registered (revoked ones included, as :meth:`bot`): one
        query for a match's seats, where a query per seat cost a match start milliseconds."""
        wanted = {bot_id for bot_id in bot_ids if can_name_a_row(bot_id)}
        if not wanted:
            # Every seat's bot is connected (the usual case): no query, and none built (a
            # select costs a tenth of a match start to build).
            return set()
        query = select(BOTS.c.bot_id).where(BOTS.c.bot_id.in_(wanted))

        def read(conn: Connection) -> set[str]:
            return {str(row[0]) for row in conn.execute(query)}

        return self.read(read, "read the bots")

    def rotate_token(self, bot_id: str) -> str:
        """Give a bot a new token (stored only as a hash) in place of its old one; returns it.

        Raises NotFoundError for an unknown bot, BotRevokedError for a revoked one (a revoked
        identity stays revoked: register a new one).
        """
        token = new_token()
        if not can_name_a_row(bot_id):
            raise NotFoundError(f"no bot with id {bot_id!r}")

        def rotate(conn: Connection) -> None:
            revoked = conn.execute(select(BOTS.c.revoked).where(BOTS.c.bot_id == bot_id)).first()
            if revoked is None:
                raise NotFoundError(f"no bot with id {bot_id!r}")
            if revoked[0]:
                raise BotRevokedError(f"bot {bot_id} is revoked; register a new identity")
            conn.execute(
                update(BOTS).where(BOTS.c.bot_id == bot_id).values(token_hash=hash_token(token))
            )

        self.transact(rotate, "rotate a bot's token")
        return token

    def revoke_bot(self, bot_id: str) -> None:
        if not can_name_a_row(bot_id):
            raise NotFoundError(f"no bot with id {bot_id!r}")

        def revoke(conn: Connection) -> None:
            done = conn.execute(update(BOTS).where(BOTS.c.bot_id == bot_id).values(revoked=1))
            if done.rowcount == 0:
                raise NotFoundError(f"no bot with id {bot_id!r}")

        self.transact(revoke, "revoke a bot")

    # --- sessions --------------------------------------------------------------------------
    def next_session_number(self) -> int:
        """A session number no referee on this database has used (PostgreSQL's sequence)."""
        return int(
            self.transact(
                lambda conn: conn.execute(select(SESSION_NUMBERS.next_value())).scalar_one(),
                "number a session",
            )
        )

    def session_opened(self, session_id: str, bot_id: str, bot_version: str, peer: str) -> None:
        row = {
            "session_id": session_id,
            "bot_id": bot_id,
            "bot_version": bot_version,
            "peer": peer,
            "opened_at": now_ms(),
            "referee_id": self.referee_id,
        }
        # Idempotent: a retry after a commit whose answer was lost inserts nothing.
        self.transact(
            lambda conn: conn.execute(
                dialect_insert(conn, SESSIONS).values(row).on_conflict_do_nothing()
            ),
            "record a session",
        )

    def session_closed(self, session_id: str, keep_per_bot: int = _KEEP_PER_BOT) -> None:
        """Record a session's end, and forget that bot's closed sessions but the newest
        ``keep_per_bot``: a bot that reconnects in a loop would otherwise fill the disk."""

        def close(conn: Connection) -> None:
            conn.execute(
                update(SESSIONS)
                .where(SESSIONS.c.session_id == session_id)
                .values(closed_at=now_ms())
            )
            bot = select(SESSIONS.c.bot_id).where(SESSIONS.c.session_id == session_id)
            _prune_sessions(conn, keep_per_bot, SESSIONS.c.bot_id == bot.scalar_subquery())

        self.transact(close, "record a session's end")

    def last_session_number(self) -> int:
        """The highest n of the session ids ``s<n>`` recorded so far (0 for none), so that a
        restarted referee numbers its sessions on from there instead of reusing ids."""
        number = sqlalchemy.cast(func.substr(SESSIONS.c.session_id, 2), sqlalchemy.BigInteger)
        query = select(func.max(number)).where(SESSIONS.c.session_id.like("s%"))
        return int(self.read(lambda conn: conn.execute(query).scalar(), "read sessions") or 0)

    def close_open_sessions(self, keep_per_bot: int = _KEEP_PER_BOT) -> int:
        """At start-up: sessions left open by a referee that died are over (and, as at every
        close, only the newest ``keep_per_bot`` closed sessions of each bot are kept).
        Sessions of another live referee on a shared database stay open."""

        def close(conn: Connection) -> int:
            owners = conn.execute(
                select(SESSIONS.c.referee_id).where(SESSIONS.c.closed_at.is_(None)).distinct()
            )
            gone = self._gone(conn, {row[0] for row in owners})
            closed = 0
            if gone:
                closed = conn.execute(
                    update(SESSIONS)
                    .where(SESSIONS.c.closed_at.is_(None), _owned_by(SESSIONS, gone))
                    .values(closed_at=now_ms())
                ).rowcount
            _prune_sessions(conn, keep_per_bot, None)
            return closed

        return self.transact(close, "close the sessions of a stopped referee")

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


def _owned_by(table: sqlalchemy.Table, owners: list[str | None]) -> sqlalchemy.ColumnElement[bool]:
    named = [owner for owner in owners if owner is not None]
    conditions = []
    if named:
        conditions.append(table.c.referee_id.in_(named))
    if None in owners:
        conditions.append(table.c.referee_id.is_(None))
    return sqlalchemy.or_(*conditions)


def _prune_sessions(
    conn: Connection, keep_per_bot: int, bot: sqlalchemy.ColumnElement[bool] | None
) -> None:
    """Delete the closed sessions of each bot (or of one) but its newest ``keep_per_bot``
    (session ids are s<n>, n rising). The newest session overall is kept, so
    last_session_number() still sees it."""
    number = sqlalchemy.cast(func.substr(SESSIONS.c.session_id, 2), sqlalchemy.BigInteger)
    newness = (
        func.row_number()
        .over(partition_by=SESSIONS.c.bot_id, order_by=number.desc())
        .label("newness")
    )
    ranked = select(SESSIONS.c.session_id, newness).where(SESSIONS.c.closed_at.is_not(None))
    if bot is not None:
        ranked = ranked.where(bot)
    old = ranked.subquery()
    conn.execute(
        SESSIONS.delete().where(
            SESSIONS.c.session_id.in_(select(old.c.session_id).where(old.c.newness > keep_per_bot))
        )
    )
