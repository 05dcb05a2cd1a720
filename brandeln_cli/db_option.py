"""``--db URL`` and ``$BRANDELN_DB``: which database the stores use, parsed in one place for
every command that takes it (``season run``, ``ratings``, ``season list``; ``serve`` too).

- absent: the SQLite files in the data folder (``DATA/ladder.db``, the referees' own), as
  before;
- a path or ``sqlite:///PATH``: an SQLite file at that path (the ladder's, for the ladder's
  commands);
- ``postgresql://user:pass@host:port/db``: that PostgreSQL database, both stores in it (each in
  its own schema, ``ladder`` and ``referee``).

The URL's password never reaches the screen: messages show
:meth:`datastore.url.DatabaseUrl.redacted`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from brandeln_cli.output import fail
from services import data_folder

if TYPE_CHECKING:
    from datastore.url import DatabaseUrl

__all__ = ["DB_ENV", "DbOption", "database_url", "is_postgresql", "ladder_database", "shown"]

DB_ENV = "BRANDELN_DB"

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
    from datastore.errors import DatabaseConfigError  # noqa: PLC0415
    from datastore.url import parse_database_url  # noqa: PLC0415

    try:
        return parse_database_url(db)
    except DatabaseConfigError as error:
        raise fail(f"--db / ${DB_ENV}: {error}", code=2) from None


def ladder_database(db: str | None, data: Path | None) -> DatabaseUrl | Path:
    """Where the ladder's store is: ``--db``'s database, else ``DATA/ladder.db``."""
    url = database_url(db)
    return url if url is not None else data_folder.ladder_db(data)


def shown(where: DatabaseUrl | Path) -> str:
    """How a message names the database (password hidden)."""
    return str(where) if isinstance(where, Path) else where.redacted()


def is_postgresql(db: str | None) -> bool:
    """Whether ``db`` names a PostgreSQL database (rather than an SQLite file or nothing),
    without parsing it (so without importing SQLAlchemy)."""
    return db is not None and db.strip().lower().startswith(("postgresql", "postgres:"))
