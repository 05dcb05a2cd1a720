"""Where match logs live: files beside an SQLite referee, a table of its database on PostgreSQL.

Both hold the same bytes (the JSON Lines of :mod:`brandeln.arena.matchlog`), appended in the same
pieces: the header at the match's start, each deal at its end, the footer at the match's end.
The index row's ``log_path`` says where a log is: a file path, or ``match_logs:<match id>``
for a log in the database, so a log is read the same way from any machine that reaches it.

A chunk is one short transaction; a chunk written again (a retry after a commit whose answer
was lost) is a no-op, so appends are safe to retry.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import IO, Protocol, TypeVar

import sqlalchemy
from sqlalchemy import Connection

from brandeln.arena.errors import DamagedLogError, StoreError
from brandeln.arena.store.schema import MATCH_LOGS
from brandeln.datastore.private_files import open_private, private_dir
from brandeln.datastore.upsert import dialect_insert

__all__ = [
    "DB_LOG_PREFIX",
    "DatabaseLogStore",
    "FileLogStore",
    "LogSink",
    "LogStore",
    "Transactor",
    "db_log_path",
    "log_in_database",
]

T = TypeVar("T")
DB_LOG_PREFIX = "match_logs:"


def db_log_path(match_id: str) -> str:
    """The ``log_path`` of a log kept in the database."""
    return DB_LOG_PREFIX + match_id


def log_in_database(log_path: str) -> str | None:
    """The match id of a ``log_path`` naming a log in the database, else None (a file)."""
    return log_path.removeprefix(DB_LOG_PREFIX) if log_path.startswith(DB_LOG_PREFIX) else None


class LogSink(Protocol):
    """One match's log, open for appending."""

    def append(self, data: bytes) -> None: ...
    def close(self) -> None: ...


class LogStore(Protocol):
    def open(self, match_id: str) -> tuple[LogSink, str]:
        """A new, empty log of ``match_id`` and the ``log_path`` that names it."""
        ...

    def read(self, log_path: str) -> bytes:
        """A log's bytes (OSError for a file that cannot be read; StoreError for a damaged or
        missing log in the database)."""
        ...


class _FileSink:
    def __init__(self, path: Path) -> None:
        self._file: IO[str] | None = open_private(path)

    def append(self, data: bytes) -> None:
        if self._file is not None:
            # The lines are ASCII JSON (json.dumps escapes the rest): text is bytes.
            self._file.write(data.decode("ascii"))
            self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


class FileLogStore:
    """One JSON Lines file per match in ``logs_dir`` (0600, the folder 0700)."""

    def __init__(self, logs_dir: Path) -> None:
        # Absolute: the index row keeps the path, and a later reader (`matches show`, the web
        # front) may run from another folder than the referee that wrote it (`--data rel`).
        self.logs_dir = logs_dir.absolute()

    def open(self, match_id: str) -> tuple[LogSink, str]:
        private_dir(self.logs_dir)
        path = self.logs_dir / f"{match_id}.jsonl"
        return _FileSink(path), str(path)

    def read(self, log_path: str) -> bytes:
        if log_in_database(log_path) is not None:
            raise StoreError(f"the log {log_path} is in a database, not in {self.logs_dir}")
        return Path(log_path).read_bytes()


class Transactor(Protocol):
    """What runs one short transaction, retried while the database is unreachable."""

    def transact(self, fn: Callable[[Connection], T], what: str, *, write: bool = True) -> T: ...

    def read(self, fn: Callable[[Connection], T], what: str) -> T: ...


class _DatabaseSink:
    def __init__(self, db: Transactor, match_id: str) -> None:
        self._db = db
        self.match_id = match_id
        self._chunk = 0

    def append(self, data: bytes) -> None:
        if not data:
            return
        row = {"match_id": self.match_id, "chunk": self._chunk, "body": data}

        def insert(conn: Connection) -> None:
            # A chunk already stored (a retry whose first commit did land) is left as it is.
            conn.execute(dialect_insert(conn, MATCH_LOGS).values(row).on_conflict_do_nothing())

        self._db.transact(insert, f"append to the log of match {self.match_id}")
        # Numbered once stored: a write that gave up (StoreError) leaves its lines with the
        # writer, and they go out with the next write under this number, with no gap, which
        # would make the whole log unreadable. (Had the failed write reached the database
        # after all, the retry is ignored as a duplicate: the log then ends whole at that piece.)
        self._chunk += 1

    def close(self) -> None:
        pass


class DatabaseLogStore:
    """The logs in the referee's database (``match_logs``), through the store's transactions."""

    def __init__(self, db: Transactor, where: str) -> None:
        self._db = db
        self.where = where

    def open(self, match_id: str) -> tuple[LogSink, str]:
        return _DatabaseSink(self._db, match_id), db_log_path(match_id)

    def read(self, log_path: str) -> bytes:
        match_id = log_in_database(log_path)
        if match_id is None:  # a file named by a row copied from an SQLite referee
            return Path(log_path).read_bytes()
        return self.read_chunks(match_id)

    def read_chunks(self, match_id: str) -> bytes:
        def select(conn: Connection) -> list[tuple[int, bytes]]:
            rows = conn.execute(
                sqlalchemy.select(MATCH_LOGS.c.chunk, MATCH_LOGS.c.body)
                .where(MATCH_LOGS.c.match_id == match_id)
                .order_by(MATCH_LOGS.c.chunk)
            )
            return [(int(chunk), bytes(body)) for chunk, body in rows]

        chunks = self._db.read(select, f"read the log of match {match_id}")
        for expected, (chunk, _) in enumerate(chunks):
            if chunk != expected:
                raise DamagedLogError(
                    f"{self.where}: the log of match {match_id} is damaged (its piece "
                    f"{expected} is missing)"
                )
        if not chunks:
            raise DamagedLogError(f"{self.where}: the log of match {match_id} is missing")
        return b"".join(body for _, body in chunks)
