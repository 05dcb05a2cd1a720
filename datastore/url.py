# ruff: noqa
"""Database URLs (STAND-IN for pg-ladder's datastore commit: same API, replaced on cherry-pick)."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from pathlib import Path

import sqlalchemy
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from datastore.errors import DatabaseConfigError

__all__ = ["Backend", "DatabaseUrl", "parse_database_url", "sqlite_url"]


class Backend(enum.StrEnum):
    SQLITE = "sqlite"
    POSTGRESQL = "postgresql"


@dataclass(frozen=True)
class DatabaseUrl:
    backend: Backend
    url: sqlalchemy.URL
    path: Path | None = None

    def redacted(self) -> str:
        if self.path is not None:
            return str(self.path)
        return self.url.render_as_string(hide_password=True)

    def schema_for(self, side: str) -> str | None:
        return side if self.backend is Backend.POSTGRESQL else None


def sqlite_url(path: Path) -> DatabaseUrl:
    return DatabaseUrl(Backend.SQLITE, sqlalchemy.URL.create("sqlite", database=str(path)), path)


def parse_database_url(text: str) -> DatabaseUrl:
    if "://" not in text:
        return sqlite_url(Path(text))
    try:
        url = make_url(text)
    except ArgumentError:
        raise DatabaseConfigError(
            f"not a database URL: {text.split('://', maxsplit=1)[0]}://..."
        ) from None
    if url.get_backend_name() == "sqlite":
        if not url.database:
            raise DatabaseConfigError("an sqlite:/// URL needs a file path")
        return sqlite_url(Path(url.database))
    if url.get_backend_name() == "postgresql":
        return DatabaseUrl(Backend.POSTGRESQL, url.set(drivername="postgresql+psycopg"))
    raise DatabaseConfigError(
        f"unsupported database {url.get_backend_name()!r}: use a path, sqlite:///PATH or "
        "postgresql://user:pass@host:port/db"
    )
