"""``--db URL`` and ``$BRANDELN_DB``: which database the stores use, parsed in one place for
every command that takes it (``season run``, ``ratings``, ``season list``; ``serve`` too).

- absent: the SQLite files in the data folder (``DATA/ladder.db``, the referees' own), as
  before;
- a path or ``sqlite:///PATH``: an SQLite file at that path (the ladder's, for the ladder's
  commands);
- ``postgresql://user:pass@host:port/db``: that PostgreSQL database, both stores in it (each in
  its own schema, ``ladder`` and ``referee``).

The URL's password never reaches the screen: messages show
:meth:`brandeln.datastore.url.DatabaseUrl.redacted`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from brandeln.cli.options import DEFAULT_LADDER
from brandeln.cli.output import fail
from brandeln.services import data_folder

if TYPE_CHECKING:
    from brandeln.datastore.url import DatabaseUrl
    from brandeln.ladder.store.database import LadderStore

__all__ = [
    "DB_ENV",
    "POINT_AT_LADDER",
    "DbOption",
    "database_url",
    "is_postgresql",
    "ladder_database",
    "open_ladder",
    "shown",
]

DB_ENV = "BRANDELN_DB"
# How a ladder command finds the running ladder from another folder: it serves from a data
# folder or a database, and nothing else says which.
POINT_AT_LADDER = (
    f"point at the running ladder with --data DIR (or ${data_folder.DATA_ENV}), the folder "
    f"`brandeln ladder serve` was given, or with --db URL (or ${DB_ENV}), its database"
)

DbOption = Annotated[
    str | None,
    typer.Option(
        "--db",
        envvar=DB_ENV,
        show_envvar=True,
        metavar="URL",
        help="The database: postgresql://user:pass@host:port/db (one PostgreSQL database for "
        "the ladder and the referee), or a path / sqlite:///PATH (an SQLite file) "
        "[default: the SQLite files in the data folder].",
    ),
]


def database_url(db: str | None) -> DatabaseUrl | None:
    """``--db``'s value parsed (None when absent); a bad URL ends the command (exit code 2)
    with the reason, never the password."""
    if not db:
        return None
    # Imported here: `brandeln --help` must not pay for SQLAlchemy.
    from brandeln.datastore.errors import DatabaseConfigError  # noqa: PLC0415
    from brandeln.datastore.url import parse_database_url  # noqa: PLC0415

    try:
        return parse_database_url(db)
    except DatabaseConfigError as error:
        raise fail(f"--db / ${DB_ENV}: {error}", code=2) from None


def ladder_database(db: str | None, data: Path | None) -> DatabaseUrl | Path:
    """Where the ladder's store is: ``--db``'s database, else ``DATA/ladder.db`` (absolute: a
    message that names it says where it looked, whatever the working directory)."""
    url = database_url(db)
    return url if url is not None else data_folder.ladder_db(data).absolute()


def _origin(db: str | None, data: Path | None) -> str:
    """Which option or variable chose the ladder's database, for a message."""
    if db:
        return f"${DB_ENV}" if os.environ.get(DB_ENV) == db else "--db"
    return data_folder.data_origin(data)


def open_ladder(
    db: str | None, data: Path | None, ladder: str, *, option: str = "--ladder"
) -> LadderStore:
    """The store that holds the always-on ladder ``ladder``, for the commands about it
    (``challenge``, ``bots version``, ``ladder status``; ``option`` is theirs that names a
    ladder); the caller closes it. When the database or the ladder is not there, the command
    ends with one line: what was searched (an absolute path), chosen how, and how to point at
    the running ladder (a season's ``season run`` does not make one: it is never suggested).
    """
    from brandeln.cli import hints  # noqa: PLC0415 - keep --help fast
    from brandeln.ladder.errors import LadderError  # noqa: PLC0415
    from brandeln.ladder.store.database import LadderStore  # noqa: PLC0415

    where = ladder_database(db, data)
    file = where if isinstance(where, Path) else where.path
    searched = shown(where) if file is None else str(file.absolute())
    origin = _origin(db, data)
    if file is not None and not file.exists():
        raise fail(f"no ladder database at {searched} ({origin}): {POINT_AT_LADDER}")
    try:
        store = LadderStore.open(where, create=False)
        try:
            names = store.ladders.ladder_names()
        except LadderError:
            store.close()
            raise
    except LadderError as error:
        raise fail(str(error)) from None
    if ladder in names:
        return store
    store.close()
    others = ", ".join(repr(name) for name in sorted(names))
    held = f"the ladders {others} ({option} NAME)" if names else "no always-on ladder"
    named = [] if ladder == DEFAULT_LADDER else ["--name", ladder]
    start = hints.command("ladder", "serve", *named, data=data, db=db)
    raise fail(
        f"no always-on ladder named {ladder!r} in {searched} ({origin}), which holds "
        f"{held}: {POINT_AT_LADDER}; or start it there with {start}"
    )


def shown(where: DatabaseUrl | Path) -> str:
    """How a message names the database (password hidden)."""
    return str(where) if isinstance(where, Path) else where.redacted()


def is_postgresql(db: str | None) -> bool:
    """Whether ``db`` names a PostgreSQL database (rather than an SQLite file or nothing),
    without parsing it (so without importing SQLAlchemy)."""
    return db is not None and db.strip().lower().startswith(("postgresql", "postgres:"))
