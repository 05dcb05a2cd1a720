"""Where the pages' data lives, and the ways reading it fails that a page says in one line.

A :class:`StorageLocation` is a data folder (``--data``: its SQLite files, laid out as
:mod:`brandeln.services.data_folder` says) or a PostgreSQL URL (``--db``); :func:`check_location`
refuses one the stores cannot serve before the app listens. The stores themselves are opened
by :mod:`brandeln.web.stores`, and read for each page by the modules named for it
(:mod:`brandeln.web.listing`, :mod:`brandeln.web.seasons`, :mod:`brandeln.web.bots`,
:mod:`brandeln.web.matches`).

>>> check_location(StorageLocation(db_url="postgresql://localhost/arena"))
>>> check_location(StorageLocation())
Traceback (most recent call last):
...
brandeln.web.data.DataError: give a data folder (--data DIR) or a database URL (--db URL)
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Final

from brandeln.datastore.url import scrub

__all__ = [
    "BadRequestError",
    "DataError",
    "PageNotFoundError",
    "StorageLocation",
    "check_location",
]

POSTGRES_SCHEMES: Final = ("postgresql://", "postgres://", "postgresql+")


class DataError(Exception):
    """A clear, user-facing reason the data cannot be shown (the page says it, no trace)."""


class PageNotFoundError(DataError):
    """No such season, bot or match (a 404 page)."""


class BadRequestError(DataError):
    """A request that asks for something malformed: a bad ``?page=``, a parameter given twice,
    a match id prefix several matches start with (a 400 page saying what)."""


@dataclass(frozen=True, slots=True)
class StorageLocation:
    """Where the data lives: a data folder (``--data``) or a database URL (``--db``)."""

    data: Path | None = None
    db_url: str | None = None

    def describe(self) -> str:
        return scrub(self.db_url) if self.db_url else str(self.data)


def check_location(location: StorageLocation) -> None:
    """Refuse, before serving, a location the stores cannot open (:class:`DataError`)."""
    if location.db_url is not None:
        if location.db_url.startswith(POSTGRES_SCHEMES):
            return
        raise DataError(
            f"--db takes a postgresql:// URL (an SQLite store is served with --data DIR), "
            f"not {scrub(location.db_url)!r}"
        )
    if location.data is None:
        raise DataError("give a data folder (--data DIR) or a database URL (--db URL)")
