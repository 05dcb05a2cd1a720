# ruff: noqa
"""Database errors (STAND-IN for pg-ladder's datastore commit: same API, replaced on cherry-pick)."""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

import sqlalchemy.exc

if TYPE_CHECKING:
    from datastore.url import DatabaseUrl

__all__ = [
    "DatabaseAuthFailed",
    "DatabaseConfigError",
    "DatabaseError",
    "DatabaseMissing",
    "DatabaseUnavailable",
    "SchemaTooNew",
    "explain",
]


class DatabaseError(Exception):
    """One-line, user-facing, URL redacted."""


class DatabaseConfigError(DatabaseError):
    pass


class DatabaseUnavailable(DatabaseError):
    pass


class DatabaseAuthFailed(DatabaseError):
    pass


class DatabaseMissing(DatabaseError):
    pass


class SchemaTooNew(DatabaseError):
    pass


def _sqlstate(exc: BaseException) -> str:
    orig = getattr(exc, "orig", exc)
    return str(getattr(orig, "sqlstate", "") or "")


def explain(exc: BaseException, url: DatabaseUrl) -> DatabaseError:
    if isinstance(exc, DatabaseError):
        return exc
    where = url.redacted()
    state = _sqlstate(exc)
    first = str(getattr(exc, "orig", exc)).strip().splitlines()
    text = first[0] if first else type(exc).__name__
    if state == "28P01" or "password authentication failed" in text:
        return DatabaseAuthFailed(f"{where}: {text}")
    if state == "3D000" or ("database" in text and "does not exist" in text):
        return DatabaseMissing(f"{where}: {text}")
    if state in ("40001", "40P01"):
        return DatabaseUnavailable(f"{where}: {text}")
    if state.startswith("08") or state in ("57P01", "57P02", "57P03"):
        return DatabaseUnavailable(f"{where}: cannot reach the database ({text})")
    if isinstance(exc, sqlalchemy.exc.OperationalError) and url.backend == "postgresql":
        return DatabaseUnavailable(f"{where}: cannot reach the database ({text})")
    if isinstance(exc, sqlalchemy.exc.DBAPIError) and exc.connection_invalidated:
        return DatabaseUnavailable(f"{where}: the connection was lost ({text})")
    if isinstance(getattr(exc, "orig", exc), sqlite3.Error):
        return DatabaseError(f"{where}: {text}")
    return DatabaseError(f"{where}: {text}")
