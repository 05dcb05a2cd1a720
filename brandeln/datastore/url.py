"""Which database a store lives in, chosen by URL (``--db URL`` or ``BRANDELN_DB``).

- a plain path or ``sqlite:///PATH``: an SQLite file (the default, one per side);
- ``postgresql://user:pass@host:port/db`` (or ``postgresql+psycopg://``): PostgreSQL through
  psycopg 3, one database for both sides, each side in its own PostgreSQL schema.

Passwords never reach a message: :meth:`DatabaseUrl.redacted` is what errors and logs show.

>>> parse_database_url("postgresql://ladder:secret@db.local:5433/arena").redacted()
'postgresql+psycopg://ladder:***@db.local:5433/arena'
>>> parse_database_url("/var/lib/brandeln/ladder.db").backend
<Backend.SQLITE: 'sqlite'>
>>> parse_database_url("postgresql://h/arena").schema_for("ladder")
'ladder'
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Final

import sqlalchemy
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from brandeln.datastore.errors import DatabaseConfigError, DatabaseError

__all__ = [
    "MEMORY",
    "Backend",
    "DatabaseUrl",
    "as_database_url",
    "parse_database_url",
    "scrub",
    "sqlite_url",
]

# An SQLite database in memory (tests, doctests): one connection for the engine's lifetime.
MEMORY: Final = ":memory:"
_PG_DRIVER: Final = "postgresql+psycopg"
_DEFAULT_PG_PORT: Final = 5432


class Backend(StrEnum):
    SQLITE = "sqlite"
    POSTGRESQL = "postgresql"


@dataclass(frozen=True)
class DatabaseUrl:
    """A parsed database URL. ``path`` is the SQLite file (None for PostgreSQL and memory)."""

    backend: Backend
    url: sqlalchemy.URL
    path: Path | None = None

    def redacted(self) -> str:
        """The URL as messages show it: the password replaced by ``***``; an SQLite file by
        its path."""
        if self.backend is Backend.SQLITE:
            return str(self.path) if self.path is not None else MEMORY
        return self.url.render_as_string(hide_password=True)

    @property
    def endpoint(self) -> str:
        """``host:port`` of a PostgreSQL server (what a "cannot connect" message names), the
        file's path for SQLite."""
        if self.backend is Backend.SQLITE:
            return self.redacted()
        host = self.url.host or "localhost (Unix socket)"
        return f"{host}:{self.url.port or _DEFAULT_PG_PORT}"

    def schema_for(self, side: str) -> str | None:
        """The PostgreSQL schema a side's tables live in (``referee``, ``ladder``): both sides
        share one database there, and their table names collide. None for SQLite (a file per
        side)."""
        return side if self.backend is Backend.POSTGRESQL else None

    @property
    def is_memory(self) -> bool:
        return self.backend is Backend.SQLITE and self.path is None


def sqlite_url(path: Path) -> DatabaseUrl:
    """The SQLite file at ``path`` (``Path(":memory:")``: a database in memory)."""
    if str(path) == MEMORY:
        return DatabaseUrl(Backend.SQLITE, make_url("sqlite://"), None)
    return DatabaseUrl(Backend.SQLITE, make_url("sqlite://").set(database=str(path)), path)


def parse_database_url(text: str) -> DatabaseUrl:
    """Parse ``--db``'s value; raises :class:`DatabaseConfigError` with a one-line reason."""
    text = text.strip()
    if not text:
        raise DatabaseConfigError("empty database URL")
    if "://" not in text:
        return sqlite_url(Path(text).expanduser())
    try:
        url = make_url(text)
    except ValueError:  # SQLAlchemy's int() of a port that is not a number
        raise DatabaseConfigError(
            f"not a database URL: {scrub(text)!r}: the port is not a number"
        ) from None
    except ArgumentError:
        raise DatabaseConfigError(
            f"not a database URL: {scrub(text)!r} (expected a path, sqlite:///PATH or "
            "postgresql://user:pass@host:port/db)"
        ) from None
    backend, _, driver = url.drivername.partition("+")
    if backend == "sqlite":
        if driver not in {"", "pysqlite"}:
            raise DatabaseConfigError(f"unsupported SQLite driver {driver!r} (use sqlite:///PATH)")
        if not url.database:
            return sqlite_url(Path(MEMORY))
        return sqlite_url(Path(url.database).expanduser())
    if backend in {"postgresql", "postgres"}:
        if driver not in {"", "psycopg"}:
            raise DatabaseConfigError(
                f"unsupported PostgreSQL driver {driver!r}: brandeln uses psycopg 3 "
                "(postgresql:// or postgresql+psycopg://)"
            )
        if not url.database:
            raise DatabaseConfigError(
                f"{url.set(drivername=_PG_DRIVER).render_as_string(hide_password=True)}: "
                "no database name (postgresql://user:pass@host:port/DATABASE)"
            )
        return DatabaseUrl(Backend.POSTGRESQL, url.set(drivername=_PG_DRIVER))
    raise DatabaseConfigError(
        f"unsupported database {backend!r} in {scrub(text)!r}: use a path, sqlite:///PATH or "
        "postgresql://user:pass@host:port/db"
    )


def as_database_url(
    where: Path | str | DatabaseUrl, *, error: Callable[[str], Exception]
) -> DatabaseUrl:
    """Where a store lives, as a :class:`DatabaseUrl`: a Path is an SQLite file, a string is
    parsed (a path or a URL), a DatabaseUrl is itself. A string that is no usable URL raises
    ``error`` (the store's own error type) with :func:`parse_database_url`'s one-line reason.

    >>> as_database_url(Path("ladder.db"), error=ValueError).path
    PosixPath('ladder.db')
    >>> as_database_url(" ", error=ValueError)
    Traceback (most recent call last):
    ...
    ValueError: empty database URL
    """
    if isinstance(where, DatabaseUrl):
        return where
    if isinstance(where, Path):
        return sqlite_url(where)
    try:
        return parse_database_url(where)
    except DatabaseError as failure:
        raise error(str(failure)) from None


def scrub(text: str) -> str:
    """``text`` without what could be a password (between ``:`` and ``@`` of the netloc)."""
    scheme, sep, rest = text.partition("://")
    netloc, slash, tail = rest.partition("/")
    if "@" in netloc:
        userinfo, _, host = netloc.rpartition("@")
        user = userinfo.split(":", 1)[0]
        netloc = f"{user}:***@{host}" if ":" in userinfo else f"{user}@{host}"
    return f"{scheme}{sep}{netloc}{slash}{tail}"
