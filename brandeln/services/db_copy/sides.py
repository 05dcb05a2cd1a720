"""The two sides of a copy (the referee's store and the ladder's), where each lives at SRC and
DST (a data folder's files or a PostgreSQL schema), and what a side's copy moved."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import sqlalchemy

from brandeln.arena.datalock import current_holder
from brandeln.arena.store.database import RefereeStore
from brandeln.arena.store.schema import METADATA, SIDE
from brandeln.datastore.engine import open_engine
from brandeln.datastore.errors import DatabaseError
from brandeln.datastore.url import Backend, DatabaseUrl, parse_database_url, sqlite_url
from brandeln.ladder.errors import StorageError
from brandeln.ladder.store.database import LadderStore
from brandeln.ladder.store.schema import METADATA as LADDER_METADATA
from brandeln.services import data_folder


class CopyError(Exception):
    """A one-line reason the copy cannot be made or did not verify."""


@dataclass(frozen=True)
class Location:
    """SRC or DST: a data folder, or a PostgreSQL database holding both sides."""

    text: str
    folder: Path | None  # a data folder (SQLite files), else None
    url: DatabaseUrl | None  # PostgreSQL

    def describe(self) -> str:
        """How messages name it (a URL's password hidden)."""
        return str(self.folder) if self.folder is not None else self.url_text()

    def url_text(self) -> str:
        """Its URL, the password hidden ("" for a folder)."""
        return self.url.redacted() if self.url is not None else ""


def parse_location(text: str) -> Location:
    """SRC or DST as given: a PostgreSQL URL, else a data folder."""
    if "://" not in text:
        return Location(text, Path(text).expanduser(), None)
    try:
        url = parse_database_url(text)
    except DatabaseError as error:
        raise CopyError(str(error)) from None
    if url.backend is not Backend.POSTGRESQL:
        raise CopyError(
            f"{text!r}: for SQLite give the data folder (it holds a file per side), not a URL"
        )
    return Location(text, None, url)


@dataclass
class Tally:
    """What one side's copy moved: rows per table, logs and their bytes."""

    rows: dict[str, int] = field(default_factory=dict)
    logs: int = 0
    log_bytes: int = 0
    missing_logs: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Side:
    """One store: its name (the PostgreSQL schema), tables and how to open it at the newest
    revision (its migrations run), giving the engine and what closes it."""

    name: str
    metadata: sqlalchemy.MetaData
    open_store: Callable[[DatabaseUrl, Path | None], tuple[sqlalchemy.Engine, Callable[[], None]]]
    sqlite_files: Callable[[Path], list[Path]]  # where it lives in a data folder, in order
    has_logs: bool = False


def referee_side() -> Side:
    """The referee's store: its tables, and its match logs beside them."""

    def open_store(
        url: DatabaseUrl, logs_dir: Path | None
    ) -> tuple[sqlalchemy.Engine, Callable[[], None]]:
        store = RefereeStore(url, logs_dir)
        return store.engine, store.close

    def files(folder: Path) -> list[Path]:
        return [
            data_folder.referee_db(folder),
            data_folder.referee_db(data_folder.embedded_dir(folder)),
        ]

    return Side(SIDE, METADATA, open_store, files, has_logs=True)


def ladder_side() -> Side:
    """The ladder's store, opened by the ladder's own code: a ladder.db of an older version
    (``user_version`` 1 or 2, no Alembic table) is adopted and migrated as `season run` would."""

    def open_store(
        url: DatabaseUrl, _logs: Path | None
    ) -> tuple[sqlalchemy.Engine, Callable[[], None]]:
        try:
            store = LadderStore.open(url)
        except StorageError as error:
            raise CopyError(str(error)) from None
        return store.engine, store.close

    return Side(
        "ladder", LADDER_METADATA, open_store, lambda folder: [data_folder.ladder_db(folder)]
    )


def sides() -> list[Side]:
    """Both sides, the referee's first."""
    return [referee_side(), ladder_side()]


def _sqlite_source(side: Side, folder: Path) -> Path | None:
    present = [p for p in side.sqlite_files(folder) if p.is_file() and p.stat().st_size]
    if len(present) > 1:
        names = " and ".join(str(p) for p in present)
        raise CopyError(
            f"{folder} holds two {side.name} databases ({names}): copy one folder per "
            "database (move one of them into a folder of its own)"
        )
    return present[0] if present else None


def _pg_side_present(url: DatabaseUrl, side: str) -> bool:
    engine = open_engine(url, side=side)
    try:
        with engine.connect() as conn:
            found = conn.execute(
                sqlalchemy.text(
                    "SELECT 1 FROM information_schema.tables WHERE table_schema = :side "
                    "AND table_name = 'alembic_version'"
                ),
                {"side": side},
            ).first()
    finally:
        engine.dispose()
    return found is not None


def source_url(side: Side, location: Location) -> DatabaseUrl | None:
    """Where SRC holds ``side``; None when it holds no such store."""
    if location.folder is not None:
        path = _sqlite_source(side, location.folder)
        return None if path is None else sqlite_url(path)
    assert location.url is not None
    return location.url if _pg_side_present(location.url, side.name) else None


def destination_url(side: Side, location: Location, source: DatabaseUrl) -> DatabaseUrl:
    """Where DST gets ``side``: an embedded referee's database where an embedded one would be;
    refused while a referee holds the file."""
    if location.folder is None:
        assert location.url is not None
        return location.url
    candidates = side.sqlite_files(location.folder)
    # An embedded referee's database goes where an embedded one would be.
    path = candidates[0]
    if (
        source.path is not None
        and source.path.parent.name == data_folder.EMBEDDED_DIR
        and len(candidates) > 1
    ):
        path = candidates[1]
    holder = current_holder(path) if side.has_logs else None
    if holder is not None:
        raise CopyError(f"{holder.describe()} is using {path}: stop it first")
    return sqlite_url(path)
