"""``--db URL`` (or ``$BRANDELN_DB``): where the stores live instead of the data folder's files.

A path or ``sqlite:///PATH`` is an SQLite file; ``postgresql://user:pass@host:port/db`` is one
PostgreSQL database holding both sides (the ``referee`` and ``ladder`` schemas). Absent: the
data folder's SQLite files, as always. Parsing is left to the stores (``datastore.url``), so
``--help`` imports nothing of SQLAlchemy.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

__all__ = ["DB_ENV", "DbOption", "is_postgresql"]

DB_ENV = "BRANDELN_DB"


def _db_option() -> Any:  # typer.Option is typed as returning Any
    return typer.Option(
        "--db",
        envvar=DB_ENV,
        show_envvar=True,
        help="Database: postgresql://user:pass@host:port/db, or an SQLite file "
        "[default: the data folder's files].",
    )


DbOption = Annotated[str | None, _db_option()]


def is_postgresql(db: str | None) -> bool:
    """Whether ``db`` names a PostgreSQL database (rather than an SQLite file or nothing)."""
    return db is not None and db.strip().lower().startswith(("postgresql", "postgres:"))
