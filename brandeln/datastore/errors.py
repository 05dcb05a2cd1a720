"""What goes wrong with a database, in one line a user can act on (the URL's password never
shown), and the classification of the drivers' errors into it.

:class:`DatabaseUnavailable` and :class:`DatabaseConflict` are the retryable ones: a
transaction that failed with them either committed or did not, so running the whole
transaction again is safe (:mod:`brandeln.datastore.retry`).
"""

from __future__ import annotations

import sqlite3
from typing import Final, Protocol

import psycopg
import sqlalchemy
import sqlalchemy.exc

__all__ = [
    "DatabaseAuthFailed",
    "DatabaseConfigError",
    "DatabaseConflict",
    "DatabaseError",
    "DatabaseMissing",
    "DatabaseUnavailable",
    "SchemaTooNew",
    "explain",
]

# SQLSTATE classes and codes (PostgreSQL's appendix A).
_AUTH: Final = frozenset({"28P01", "28000"})
_MISSING_DB: Final = "3D000"
_CONFLICT: Final = frozenset({"40001", "40P01"})  # serialization failure, deadlock
# admin/crash shutdown, cannot connect now, too many connections
_GONE: Final = frozenset({"57P01", "57P02", "57P03", "53300"})


class DatabaseUrlLike(Protocol):
    """What a message needs of :class:`brandeln.datastore.url.DatabaseUrl` (a protocol: url.py
    raises these errors, so this module cannot import it)."""

    @property
    def url(self) -> sqlalchemy.URL: ...

    @property
    def endpoint(self) -> str: ...

    def redacted(self) -> str: ...


class DatabaseError(Exception):
    """A database error with a one-line, user-facing message (URL redacted)."""


class DatabaseConfigError(DatabaseError):
    """A database URL that cannot be used (unknown scheme, no database name...)."""


class DatabaseUnavailable(DatabaseError):  # noqa: N818 - the shared design's name
    """The server refused the connection, went away or timed out: retrying may help."""


class DatabaseConflict(DatabaseError):  # noqa: N818 - the shared design's name
    """A transaction lost to a concurrent one (serialization failure, deadlock, SQLite busy):
    it was rolled back, and running it again is safe."""


class DatabaseAuthFailed(DatabaseError):  # noqa: N818 - the shared design's name
    """The server refused the user's credentials."""


class DatabaseMissing(DatabaseError):  # noqa: N818 - the shared design's name
    """The server has no database of the URL's name."""


class SchemaTooNew(DatabaseError):  # noqa: N818 - the shared design's name
    """The database was migrated by a newer brandeln than this one."""


def explain(exc: BaseException, url: DatabaseUrlLike) -> DatabaseError:
    """The :class:`DatabaseError` that says what ``exc`` (a SQLAlchemy, psycopg or sqlite3
    error) means for the database at ``url``."""
    if isinstance(exc, DatabaseError):
        return exc
    original: BaseException = exc
    invalidated = False
    if isinstance(exc, sqlalchemy.exc.DBAPIError):
        invalidated = bool(exc.connection_invalidated)
        if exc.orig is not None:
            original = exc.orig
    where = url.redacted()
    detail = _first_line(original)
    if isinstance(original, psycopg.Error):
        return _explain_psycopg(original, url, detail, invalidated)
    if isinstance(original, sqlite3.Error):
        lowered = detail.lower()
        if "locked" in lowered or "busy" in lowered:
            return DatabaseConflict(f"{where}: the database stayed locked by another process")
        if "unable to open" in lowered:
            return DatabaseUnavailable(f"{where}: cannot open the SQLite file ({detail})")
        return DatabaseError(f"{where}: {detail}")
    if isinstance(exc, sqlalchemy.exc.TimeoutError):
        return DatabaseUnavailable(f"{where}: no free connection in the pool ({detail})")
    if invalidated:
        return DatabaseUnavailable(f"lost the connection to {url.endpoint} ({where}): {detail}")
    return DatabaseError(f"{where}: {detail}")


def _explain_psycopg(
    error: psycopg.Error, url: DatabaseUrlLike, detail: str, invalidated: bool
) -> DatabaseError:
    where = url.redacted()
    state = error.sqlstate or ""
    lowered = detail.lower()
    user = url.url.username or "(none)"
    if state in _AUTH or "password authentication failed" in lowered:
        return DatabaseAuthFailed(
            f"PostgreSQL at {url.endpoint}: password authentication failed for user {user!r} "
            f"({where})"
        )
    if state == _MISSING_DB or ("database" in lowered and "does not exist" in lowered):
        return DatabaseMissing(
            f"PostgreSQL at {url.endpoint}: database {url.url.database!r} does not exist "
            f"(create it: createdb {url.url.database}) ({where})"
        )
    if state in _CONFLICT:
        return DatabaseConflict(f"{where}: transaction conflicted with another ({detail})")
    if (
        state.startswith("08")
        or state in _GONE
        or invalidated
        or isinstance(error, psycopg.OperationalError)
    ):
        return DatabaseUnavailable(f"cannot reach PostgreSQL at {url.endpoint} ({where}): {detail}")
    return DatabaseError(f"{where}: {detail}")


def _first_line(error: BaseException) -> str:
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    if not lines:
        return type(error).__name__
    # psycopg puts the useful part ("Connection refused") after "connection failed: ...".
    return "; ".join(lines[:2]) if len(lines) > 1 and len(lines[0]) < 60 else lines[0]
